"""What is made from the model: ``orbito-hw cad build DIR`` (``build``), the BOM (``bom``), how
each part prints (``printing``) and the slicer's figures (``slicer``), the renders
(``render``) and the cable-routing drawing (``routing``)."""
