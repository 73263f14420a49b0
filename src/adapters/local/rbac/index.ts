// The embedded RBAC authorizer (local backend): createRbacAuthorizer is the entry point.
export { createRbacAuthorizer, type RbacAuthorizer, type RbacAuthorizerOptions, SystemPrivilegedGroup } from './authorizer.ts';
export { isOverbroadNonResourceURL } from './lint.ts';
