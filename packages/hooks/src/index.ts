export { hooksModule } from './hooksModule.js';
