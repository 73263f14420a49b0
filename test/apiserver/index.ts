// The stand-in Kubernetes API server (see server.ts). Anything that stands for "in a cluster" runs
// against a real kube-apiserver (test/control-plane/); this one stays only for what a real API server
// cannot be made to do on demand, or cannot be asked to count. Its uses, and why:
// - test/integration/cluster-authorizer.test.ts: 429 with Retry-After, 500s, resets, hangs and latency
//   on SubjectAccessReview; exactly how many reviews reach it (caching, singleflight, per-request limit).
// - test/integration/discovery.test.ts: discovery that resets, hangs, fails or is slow; its call counts.
// - test/integration/cluster-lookups.test.ts: informers against a stalled or dropped WATCH (through
//   tcp-proxy.ts), failing and hanging LISTs, failing and hanging live GETs, the query a WATCH is sent
//   with (the ordinary reads: test/control-plane/cluster-lookups.test.ts).
// - test/integration/informer-watch.test.ts: the list-then-watch loop fed a watch that ends cleanly,
//   a 410 Gone as the answer or as an ERROR event, a silent watch, and a line that is no event.
// - test/integration/cluster-namespaces.test.ts: one LIST and no GET to fill the namespace cache; a
//   backend for the namespace plugins that asks for nothing else.
// - test/integration/cluster-feature-gates.test.ts: a /version per release (version-route.ts) for the
//   feature-gate defaults, and /version failing.
// - test/integration/kube-transport.test.ts: both transports given byte-identical requests, a 429 with
//   Retry-After as a response, a call aborted mid-flight.
// - test/integration/ownerreferences-cluster.test.ts: the upstream rows through the cluster adapters,
//   with the number of SubjectAccessReviews and discovery calls each sends.
// - test/integration/rbac-mirror.test.ts, serve-rbac-mirror.test.ts: the mirror's informers against
//   failing LISTs and its reviews counted (its equality with real RBAC is in the control-plane suites).
// - test/integration/serve-cluster.test.ts: the SubjectAccessReview's body and count, the reads a
//   cached answer never makes, a LIST refused exactly once, and a 503 on SubjectAccessReview whose log
//   must carry no credential (the answers themselves: test/control-plane/serve-cluster.test.ts).
// - test/integration/cli-unregister.test.ts: one DELETE per configuration, and a DELETE that hangs.
// - test/observability/recorders.test.ts: the adapters' metrics under injected 500s, with call counts.
// - bench/apiserver.ts, bench/rbac-mirror-apiserver.ts (used by bench/run.ts, bench/rbac-mirror.ts): a
//   fast SubjectAccessReview, discovery and RBAC server in a process of its own, so the benchmark
//   measures the webhook and not an API server.

export type { RecordedRequest } from './call-log.ts';
export type { Fault, FaultOptions } from './faults.ts';
export type { ResourceType, StoredObject, WatchEvent } from './object-store.ts';
export { putRbac, type RbacObjects } from './put-rbac.ts';
export { clusterRoleBindingType, clusterRoleType, namespaceType, rbacTypes, roleBindingType, roleType } from './resource-types.ts';
export type { EventStream, Route, RouteRequest, RouteResponder } from './routes.ts';
export { type AuthorizationRule, ruleTableAuthorizer } from './rule-table-authorizer.ts';
export { type StandInApiServer, type StandInOptions, startStandInApiServer } from './server.ts';
export { storeRbacAuthorizer } from './store-rbac-authorizer.ts';
export { subjectAccessReviewRouteName } from './subject-access-review.ts';
