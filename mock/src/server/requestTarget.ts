// A request target as the HTTP adapter receives it: read by the core's one reading of targets (core/target.ts), which
// the routing, the controls, the journal, the probes, the metrics and the log all use. RFC 9112 §3.2.2: a server must
// accept the absolute form (`POST http://127.0.0.1:4010/api/external/v1/projects/resume HTTP/1.1`, what a client
// sends to a proxy) and then use the target's authority as the request's host, ignoring any Host header; the core is
// given the origin form and that host, so the request is answered exactly as its origin form would be.
export { originForm, readTarget } from '../core/target.ts';
