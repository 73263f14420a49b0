// DenyServiceExternalIPs (upstream plugin/pkg/admission/network/denyserviceexternalips): no new use
// of Service spec.externalIPs. Whoever may create a Service could otherwise claim any IP and
// intercept its traffic inside the cluster (CVE-2020-8554); existing IPs may stay or be removed.
import type { Attributes } from '../../admission/attributes.ts';
import { forbidden } from '../../admission/errors.ts';
import { explained, FactType, maxFactItems } from '../../admission/explanation.ts';
import { Operation } from '../../admission/operation.ts';
import type { AdmissionPlugin, PluginDefinition } from '../../admission/plugin.ts';
import { internalError } from '../../api/status-error.ts';
import { isPlainObject } from '../../util/plain-object.ts';

export const pluginName = 'DenyServiceExternalIPs';

export const definition: PluginDefinition<never> = {
  name: pluginName,
  needs: [],
  create: () => denyServiceExternalIPs(),
};

export function denyServiceExternalIPs(): AdmissionPlugin {
  return {
    name: pluginName,
    handles: (operation) => operation === Operation.Create || operation === Operation.Update,
    validate(attributes) {
      if (attributes.resource.group !== '' || attributes.resource.resource !== 'services' || attributes.subresource !== '') return;
      const newIPs = externalIPsOf(attributes, attributes.object);
      // An absent old object (a CREATE) allows no IP at all.
      const oldIPs =
        attributes.oldObject === undefined || attributes.oldObject === null ? undefined : externalIPsOf(attributes, attributes.oldObject);
      if (isSubset(newIPs, oldIPs)) return;
      const added = addedIPs(newIPs, oldIPs);
      throw explained(forbidden(attributes, 'Use of external IPs is denied by admission control'), {
        facts: [{ type: FactType.ExternalIPs, added: added.slice(0, maxFactItems), total: added.length }],
      });
    },
  };
}

/** Every new IP was already there; no IPs at all is always a subset. */
function isSubset(newIPs: readonly string[], oldIPs: readonly string[] | undefined): boolean {
  if (newIPs.length === 0) return true;
  if (oldIPs === undefined) return false;
  const old = new Set(oldIPs);
  return newIPs.every((ip) => old.has(ip));
}

/** The IPs the Service adds, each once, in order. */
function addedIPs(newIPs: readonly string[], oldIPs: readonly string[] | undefined): string[] {
  const old = new Set(oldIPs ?? []);
  return [...new Set(newIPs)].filter((ip) => !old.has(ip));
}

/** spec.externalIPs of a body that decodes as a Service; anything else is upstream's internal error. */
function externalIPsOf(attributes: Attributes, object: unknown): string[] {
  const notAService = () => {
    const { group, version, kind } = attributes.kind;
    // schema.GroupVersionKind's String(): "/v1, Kind=Service".
    return internalError(`Expected Service resource, got: ${group}/${version}, Kind=${kind}`);
  };
  if (!isPlainObject(object) || (object.kind !== undefined && object.kind !== 'Service')) throw notAService();
  const spec = object.spec;
  if (spec === undefined || spec === null) return [];
  if (!isPlainObject(spec)) throw notAService();
  const ips = spec.externalIPs;
  if (ips === undefined || ips === null) return [];
  if (!Array.isArray(ips) || !ips.every((ip) => typeof ip === 'string' || ip === null)) throw notAService();
  // A null entry decodes as "".
  return ips.map((ip) => (ip === null ? '' : (ip as string)));
}
