// The stand-in Kubernetes API server for integration tests (see server.ts).
export { startStandInApiServer, type StandInApiServer, type StandInOptions } from './server.ts';
export type { Fault, FaultOptions } from './faults.ts';
export type { Route, RouteRequest, RouteResponder, EventStream } from './routes.ts';
export type { ResourceType, StoredObject, WatchEvent } from './object-store.ts';
export type { RecordedRequest } from './call-log.ts';
export { subjectAccessReviewRouteName } from './subject-access-review.ts';
export { ruleTableAuthorizer, type AuthorizationRule } from './rule-table-authorizer.ts';
export { namespaceType, rbacTypes, roleType, clusterRoleType, roleBindingType, clusterRoleBindingType } from './resource-types.ts';
export { storeRbacAuthorizer } from './store-rbac-authorizer.ts';
export { putRbac, type RbacObjects } from './put-rbac.ts';
