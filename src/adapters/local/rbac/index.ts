// The embedded RBAC authorizer (local backend): createRbacAuthorizer is the entry point.
export { createRbacAuthorizer, SystemPrivilegedGroup, type RbacAuthorizer, type RbacAuthorizerOptions } from './authorizer.ts';
export { isOverbroadNonResourceURL } from './lint.ts';
