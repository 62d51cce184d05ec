// Asterisk and SIP as the rest of ringhook sees them: the ARI client and its events, the managed
// Asterisk, its configuration and runtime, the endpoints calls are placed through, and the checks
// doctor makes (registrations, STUN, TLS).
export { type AriCallControl, AriClient } from './ari.js';
export { AriError } from './ari-error.js';
export { type AriEvent, type AriEventOf, eventChannelId } from './ari-schema.js';
export { asteriskTemplates, ManagedAsterisk } from './asterisk.js';
export { asteriskPathProblem, parseSipUri, SYSTEM_CA_FILE } from './asterisk-config.js';
export {
  type AsteriskRuntime,
  asteriskCliCommand,
  parseRuntime,
  readProvisionedRuntime,
} from './asterisk-runtime.js';
export { type Endpoint, throughTrunk, toSoftphone } from './endpoint.js';
export { parseRegistrations } from './registrations.js';
export { publicAddressFromStun } from './stun-client.js';
export { probeTls } from './tls-probe.js';
