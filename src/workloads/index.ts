// Workloads as their controllers roll them out: the objects each controller would create from a
// workload's template, the identity it creates them as, and the RBAC every cluster gives it.
export { controllerBootstrapRoles } from './bootstrap-roles.ts';
export { type ControllerName, Controllers, controllerUser } from './controllers.ts';
export { type Created, type ExpandOptions, expandWorkload, isWorkload } from './expand.ts';
export { controllerOf, isMadeByWorkload } from './owners.ts';
