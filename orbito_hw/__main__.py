from orbito_hw.cli import main

raise SystemExit(main())
