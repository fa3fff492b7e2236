// What the seat's page needs of MQTT.js: connect, over WebSockets, from the browser.
// esbuild bundles MQTT.js's browser build into one file whose global is `mqtt`
// (mqtt.connect), served from orbito_hw/web/static/vendor/: nothing fetched at run time.
import mqtt from "mqtt";

export const connect = mqtt.connect;
