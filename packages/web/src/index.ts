export { webAssets, webModule } from './webModule.js';
