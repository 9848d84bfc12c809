// The assistant's web handlers, as the server mounts them.
export { answer } from "./system";
export { triage } from "./triage";
