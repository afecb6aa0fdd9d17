// Every server-side test runs with the product's modules loaded (their events and permissions
// registered), as every entry point of the product does (services/modules/index.ts).
import '../services/modules/index.js';
