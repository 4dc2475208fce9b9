export type { CapabilityStateEntry, SetCapabilityStateResult } from './CapabilityStateEntry.js';
export { CapabilityStateService } from './CapabilityStateService.js';
export { CapabilityStateStore } from './CapabilityStateStore.js';
export { decideGate, decideSurfaced } from './decideState.js';
export type { DesiredCapability } from './DesiredCapability.js';
export { CONFIG_FILE, gateKey, planGateRewrite, readGateConfig, withConfigLock } from './GateConfig.js';
export { GateConfigInvalidError } from './StateErrors.js';
export type { SetCapabilityStateParams } from './stateRpcMethods.js';
export { stateModule } from './stateModule.js';
