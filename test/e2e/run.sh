#!/usr/bin/env bash
# End-to-end check of admission-chain on a real, DISPOSABLE cluster (kind, or a managed test cluster):
# installs the chart with locally generated certificates (bring-your-own TLS mode), then runs the
# `kubectl apply --dry-run=server` examples with every plugin enforcing (pluginMode=enforce; the chart
# defaults to warn) and checks the verdicts, patches and warnings.
#
#   KUBECONFIG=~/.kube/kind-e2e test/e2e/run.sh
#
# Environment:
#   KUBECONFIG   required, and must be set explicitly: the script never falls back to ~/.kube/config,
#                so it cannot install a fail-closed webhook into your everyday cluster by accident.
#   IMAGE        image to run (repository:tag). Unset on a kind-* context with docker and kind on PATH:
#                the image is built from the Dockerfile and loaded into the kind cluster.
#   NAMESPACE    release namespace (default admission-chain-e2e).
#   KEEP=1       leave everything installed afterwards (default: uninstall and delete namespaces).
#   HELM, KUBECTL  binaries to use (default: on PATH, else the ones the chart tests extract).
# Exits 0 without doing anything when no cluster is reachable. Not part of `npm test`.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"

node_bin="$repo/node_modules/.bin/node"
[[ -x "$node_bin" ]] || node_bin="node"

tool() { # tool NAME: a binary on PATH, else the copy extracted for the chart tests
  if command -v "$1" >/dev/null 2>&1; then command -v "$1"; return; fi
  "$node_bin" --input-type=module -e "const t = await import('$repo/test/deploy/tools.ts'); console.log(t.${1}Path());"
}

if [[ -z "${KUBECONFIG:-}" ]]; then
  echo "e2e: KUBECONFIG is not set; no disposable cluster to test against. Skipping (exit 0)."
  exit 0
fi
KUBECTL="${KUBECTL:-$(tool kubectl)}"
if ! "$KUBECTL" get --raw /readyz --request-timeout=5s >/dev/null 2>&1; then
  echo "e2e: no cluster reachable through KUBECONFIG=$KUBECONFIG. Skipping (exit 0)."
  exit 0
fi
HELM="${HELM:-$(tool helm)}"

namespace="${NAMESPACE:-admission-chain-e2e}"
release="admission-chain"
demo="admission-chain-demo"
work="$(mktemp -d)"
failures=0

cleanup() {
  if [[ "${KEEP:-}" == "1" ]]; then
    echo "e2e: KEEP=1, leaving release $release in $namespace and namespace $demo"
  else
    # The chart's pre-delete hook removes the webhook configurations first, so nothing is left that fails closed.
    "$HELM" uninstall "$release" -n "$namespace" --wait >/dev/null 2>&1 || true
    "$KUBECTL" delete namespace "$demo" "$namespace" --ignore-not-found --wait=false >/dev/null 2>&1 || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

pass() { echo "  ok   $1"; }
fail() { echo "  FAIL $1"; failures=$((failures + 1)); }

# --- image ---------------------------------------------------------------------------------------
context="$("$KUBECTL" config current-context)"
if [[ -z "${IMAGE:-}" ]]; then
  if [[ "$context" == kind-* ]] && command -v docker >/dev/null && command -v kind >/dev/null; then
    IMAGE="admission-chain:e2e"
    echo "e2e: building $IMAGE and loading it into kind cluster ${context#kind-}"
    docker build -t "$IMAGE" "$repo"
    kind load docker-image "$IMAGE" --name "${context#kind-}"
  else
    echo "e2e: set IMAGE=repository:tag to an image the cluster can pull (or use a kind context with docker and kind installed)" >&2
    exit 1
  fi
fi

# --- install with locally generated certificates ---------------------------------------------------
echo "e2e: installing into $namespace on context $context"
"$node_bin" certs/generate.ts --service "$release" --namespace "$namespace" --out "$work/tls" --no-localhost >/dev/null
"$KUBECTL" create namespace "$namespace" --dry-run=client -o yaml | "$KUBECTL" apply -f - >/dev/null
"$KUBECTL" -n "$namespace" create secret tls admission-chain-tls --cert "$work/tls/tls.crt" --key "$work/tls/tls.key" \
  --dry-run=client -o yaml | "$KUBECTL" apply -f - >/dev/null
install() { # install EXTRA_HELM_ARGS...
  "$HELM" upgrade --install "$release" charts/admission-chain -n "$namespace" --wait --timeout 5m \
    --set fullnameOverride="$release" \
    --set image.repository="${IMAGE%:*}" --set image.tag="${IMAGE##*:}" --set image.pullPolicy=IfNotPresent \
    --set replicaCount=2 \
    --set tls.mode=secret --set tls.secret.name=admission-chain-tls \
    --set tls.secret.caBundle="$(base64 < "$work/tls/ca.crt" | tr -d '\n')" \
    --set plugins.StorageObjectInUseProtection.enabled=true \
    --set pluginMode=enforce \
    "$@" >/dev/null
  # The webhook registers its webhooks itself once a replica answers through the Service.
  "$KUBECTL" wait --for=jsonpath='{.webhooks[0].name}'=validate.admission-chain.io \
    validatingwebhookconfiguration/"$release" --timeout=120s >/dev/null
}
install
"$KUBECTL" apply -f examples/namespace.yaml -f examples/demo-user-rbac.yaml >/dev/null

# --- checks ----------------------------------------------------------------------------------------
echo "e2e: dry-run checks"
policy="$("$KUBECTL" apply --dry-run=server -f examples/pod.yaml -o jsonpath='{.spec.containers[*].imagePullPolicy}')"
[[ "$policy" == "Always" ]] && pass "AlwaysPullImages patched imagePullPolicy to Always" || fail "pod imagePullPolicy is '$policy', want Always"

finalizers="$("$KUBECTL" apply --dry-run=server -f examples/pvc.yaml -o jsonpath='{.metadata.finalizers}')"
[[ "$finalizers" == *kubernetes.io/pvc-protection* ]] && pass "PVC carries kubernetes.io/pvc-protection" || fail "PVC finalizers '$finalizers'"

if out="$("$KUBECTL" apply --dry-run=server --as=demo-user -f examples/configmap-owner-allowed.yaml 2>&1)"; then
  pass "ORPE allows an owner reference without blockOwnerDeletion"
else
  fail "allowed example was rejected: $out"
fi

denied_message="cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on"
if out="$("$KUBECTL" apply --dry-run=server --as=demo-user -f examples/configmap-owner-denied.yaml 2>&1)"; then
  fail "denied example was admitted: $out"
elif [[ "$out" == *'admission webhook "validate.admission-chain.io" denied the request'* && "$out" == *"$denied_message"* ]]; then
  pass "ORPE denies blockOwnerDeletion without finalizers permission (upstream message)"
else
  fail "denied example failed for another reason: $out"
fi

"$KUBECTL" label namespace "$demo" admission-chain.io/disabled=true --overwrite >/dev/null
policy="$("$KUBECTL" apply --dry-run=server -f examples/pod.yaml -o jsonpath='{.spec.containers[*].imagePullPolicy}')"
[[ "$policy" == "IfNotPresent" ]] && pass "an opted-out namespace is not sent to the webhook" || fail "opted-out namespace still mutated ('$policy')"
"$KUBECTL" label namespace "$demo" admission-chain.io/disabled- >/dev/null

# Leases are never sent to the webhook (matchConditions). Proof: the same blocking owner reference
# ORPE just denied on a ConfigMap is admitted on a Lease, for the same user.
"$KUBECTL" apply -f - >/dev/null <<LEASE_RBAC
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: e2e-leases, namespace: $demo}
rules: [{apiGroups: [coordination.k8s.io], resources: [leases], verbs: [create]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: e2e-leases, namespace: $demo}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: e2e-leases}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: demo-user}]
LEASE_RBAC
if out="$("$KUBECTL" create --dry-run=server --as=demo-user -f - 2>&1 <<LEASE
apiVersion: coordination.k8s.io/v1
kind: Lease
metadata:
  name: e2e-probe
  namespace: $demo
  ownerReferences:
    - {apiVersion: apps/v1, kind: Deployment, name: web, uid: 6f1c2a3e-4b5d-4e6f-8a9b-0c1d2e3f4a5b, blockOwnerDeletion: true}
LEASE
)"; then
  pass "Leases are not sent to the webhook"
else
  fail "a Lease was judged by the webhook: $out"
fi

echo "e2e: switching ORPE to warn mode"
install --reuse-values --set plugins.OwnerReferencesPermissionEnforcement.mode=warn
if out="$("$KUBECTL" apply --dry-run=server --as=demo-user -f examples/configmap-owner-denied.yaml 2>&1)"; then
  [[ "$out" == *Warning:* && "$out" == *"$denied_message"* ]] && pass "warn mode admits with the upstream message as a warning" || fail "warn mode admitted without the warning: $out"
else
  fail "warn mode still denies: $out"
fi

if (( failures > 0 )); then
  echo "e2e: $failures check(s) failed"
  exit 1
fi
echo "e2e: all checks passed"
