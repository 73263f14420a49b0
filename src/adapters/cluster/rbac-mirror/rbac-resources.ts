// The four resources the RBAC mirror watches, in a module of their own so that metrics can name them
// without loading the cluster adapters (and @kubernetes/client-node) with them.
export const rbacResources = ['roles', 'clusterroles', 'rolebindings', 'clusterrolebindings'] as const;
export type RbacResource = (typeof rbacResources)[number];
