{{/* Names and labels, as `helm create` lays them out. */}}
{{- define "admission-chain.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "admission-chain.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "admission-chain.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "admission-chain.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "admission-chain.selectorLabels" -}}
app.kubernetes.io/name: {{ include "admission-chain.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "admission-chain.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "admission-chain.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "admission-chain.image" -}}
{{- $repository := required "image.repository is required: no admission-chain image is published yet. Build and push one from the repository's Dockerfile, then install with --set image.repository=REGISTRY/admission-chain --set image.tag=TAG (docs/deploy.md, Container image)" .Values.image.repository }}
{{- if .Values.image.digest }}
{{- printf "%s@%s" $repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" $repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/* The Secret the serving certificate lives in, whoever issues it. */}}
{{- define "admission-chain.tlsSecretName" -}}
{{- if eq .Values.tls.mode "secret" }}
{{- required "tls.secret.name is required when tls.mode is secret" .Values.tls.secret.name }}
{{- else }}
{{- printf "%s-tls" (include "admission-chain.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}

{{/* The host of webhooks.url, or empty in Service mode. */}}
{{- define "admission-chain.urlHost" -}}
{{- with .Values.webhooks.url }}
{{- $url := urlParse . }}
{{- if ne $url.scheme "https" }}
{{- fail (printf "webhooks.url must be an https:// URL, got %q" .) }}
{{- end }}
{{- if hasPrefix "[" $url.host }}
{{- regexReplaceAll "^\\[(.*)\\](:[0-9]+)?$" $url.host "${1}" }}
{{- else }}
{{- regexReplaceAll ":[0-9]+$" $url.host "" }}
{{- end }}
{{- end }}
{{- end }}

{{/*
The names the serving certificate must cover, <service>.<namespace>.svc first (its common name):
the Service's names, the webhooks.url host, and tls.extraDnsNames. As a YAML list.
*/}}
{{- define "admission-chain.servingNames" -}}
{{- $fullname := include "admission-chain.fullname" . }}
{{- $ns := .Release.Namespace }}
{{- $names := list (printf "%s.%s.svc" $fullname $ns) $fullname (printf "%s.%s" $fullname $ns) (printf "%s.%s.svc.cluster.local" $fullname $ns) }}
{{- with include "admission-chain.urlHost" . }}
{{- $names = append $names . }}
{{- end }}
{{- toYaml (concat $names .Values.tls.extraDnsNames | uniq) }}
{{- end }}

{{/* Whether the webhook registers itself in (and injects the CA into) the webhook configurations. */}}
{{- define "admission-chain.manageRegistration" -}}
{{- if or .Values.webhooks.registerWhenReady (eq .Values.tls.mode "self-managed") }}true{{ end }}
{{- end }}

{{/*
The plugins in the server's fixed order (upstream AllOrderedPlugins), and what each one is sent.
Each plugin only ever looks at these resources and operations, so the webhook rules are the union
over the enabled plugins: anything else never leaves the API server. Subresources are named
explicitly; ORPE alone needs every resource and subresource.
*/}}
{{- define "admission-chain.pluginOrder" -}}
- LimitPodHardAntiAffinityTopology
- ServiceAccount
- AlwaysPullImages
- ImagePolicyWebhook
- PodNodeSelector
- PodTolerationRestriction
- EventRateLimit
- ExtendedResourceToleration
- StorageObjectInUseProtection
- OwnerReferencesPermissionEnforcement
- RuntimeClass
- DenyServiceExternalIPs
- PodTopologyLabels
{{- end }}

{{- define "admission-chain.pluginCatalog" -}}
LimitPodHardAntiAffinityTopology:
  # Validate only; the pods resource itself (subresources pass), CREATE and UPDATE.
  validating:
    - {group: "", versions: [v1], resource: pods, scope: Namespaced, operations: [CREATE, UPDATE]}
ServiceAccount:
  # Admit defaults and mounts on pod creation; Validate also checks secrets named by ephemeral containers.
  mutating:
    - {group: "", versions: [v1], resource: pods, scope: Namespaced, operations: [CREATE]}
  validating:
    - {group: "", versions: [v1], resource: pods, scope: Namespaced, operations: [CREATE]}
    - {group: "", versions: [v1], resource: pods/ephemeralcontainers, scope: Namespaced, operations: [UPDATE]}
AlwaysPullImages:
  mutating:
    - {group: "", versions: [v1], resource: pods, scope: Namespaced, operations: [CREATE, UPDATE]}
  validating:
    - {group: "", versions: [v1], resource: pods, scope: Namespaced, operations: [CREATE, UPDATE]}
ImagePolicyWebhook:
  # Validate only, as upstream: pods and their ephemeral containers, CREATE and UPDATE.
  validating:
    - {group: "", versions: [v1], resource: pods, scope: Namespaced, operations: [CREATE, UPDATE]}
    - {group: "", versions: [v1], resource: pods/ephemeralcontainers, scope: Namespaced, operations: [UPDATE]}
PodNodeSelector:
  # Handles CREATE only; the pods resource itself.
  mutating:
    - {group: "", versions: [v1], resource: pods, scope: Namespaced, operations: [CREATE]}
  validating:
    - {group: "", versions: [v1], resource: pods, scope: Namespaced, operations: [CREATE]}
PodTolerationRestriction:
  # Default tolerations on CREATE; the memory-pressure toleration and the whitelist on UPDATE too.
  mutating:
    - {group: "", versions: [v1], resource: pods, scope: Namespaced, operations: [CREATE, UPDATE]}
  validating:
    - {group: "", versions: [v1], resource: pods, scope: Namespaced, operations: [CREATE, UPDATE]}
EventRateLimit:
  # Validate only; core events, CREATE and UPDATE (an event recorder's patch of a repeated event).
  # events.k8s.io Events are not limited upstream: a match condition keeps out those the API server
  # would convert to core ones for this rule.
  validating:
    - {group: "", versions: [v1], resource: events, scope: Namespaced, operations: [CREATE, UPDATE]}
ExtendedResourceToleration:
  # Admit only.
  mutating:
    - {group: "", versions: [v1], resource: pods, scope: Namespaced, operations: [CREATE, UPDATE]}
StorageObjectInUseProtection:
  mutating:
    - {group: "", versions: [v1], resource: persistentvolumes, scope: Cluster, operations: [CREATE]}
    - {group: "", versions: [v1], resource: persistentvolumeclaims, scope: Namespaced, operations: [CREATE]}
    - {group: storage.k8s.io, versions: ["*"], resource: volumeattributesclasses, scope: Cluster, operations: [CREATE]}
OwnerReferencesPermissionEnforcement:
  validating:
    - {group: "*", versions: ["*"], resource: "*/*", scope: "*", operations: [CREATE, UPDATE]}
RuntimeClass:
  mutating:
    - {group: "", versions: [v1], resource: pods, scope: Namespaced, operations: [CREATE]}
  validating:
    - {group: "", versions: [v1], resource: pods, scope: Namespaced, operations: [CREATE]}
DenyServiceExternalIPs:
  # Validate only; the services resource itself (services/status passes), CREATE and UPDATE.
  validating:
    - {group: "", versions: [v1], resource: services, scope: Namespaced, operations: [CREATE, UPDATE]}
PodTopologyLabels:
  # Admit only, CREATE only: the Binding of pods/binding (which kube-apiserver copies onto the pod),
  # and a pod created with spec.nodeName set.
  mutating:
    - {group: "", versions: [v1], resource: pods, scope: Namespaced, operations: [CREATE]}
    - {group: "", versions: [v1], resource: pods/binding, scope: Namespaced, operations: [CREATE]}
{{- end }}

{{/* A plugin's mode: its own, or pluginMode. Call with (list $ "PluginName"). */}}
{{- define "admission-chain.pluginMode" -}}
{{- $root := index . 0 }}
{{- (get $root.Values.plugins (index . 1)).mode | default $root.Values.pluginMode | default "enforce" }}
{{- end }}

{{/*
The validating webhook's failurePolicy: webhooks.validating.failurePolicy when set; otherwise Fail
while an enabled validating plugin enforces, and Ignore while each one only warns or audits: failing
closed buys nothing then, and an outage would block writes no plugin rejects.
*/}}
{{- define "admission-chain.validatingFailurePolicy" -}}
{{- $policy := .Values.webhooks.validating.failurePolicy }}
{{- if not $policy }}
{{- $policy = "Ignore" }}
{{- $catalog := include "admission-chain.pluginCatalog" . | fromYaml }}
{{- range $name := include "admission-chain.enabledPlugins" . | fromYamlArray }}
{{- if and (get (get $catalog $name) "validating") (eq (include "admission-chain.pluginMode" (list $ $name)) "enforce") }}
{{- $policy = "Fail" }}
{{- end }}
{{- end }}
{{- end }}
{{- $policy }}
{{- end }}

{{/*
The namespaces each platform's own components run in (webhooks.excludedNamespacesPreset), beyond
kube-system: docs/deploy.md names the component and the source of each.
*/}}
{{- define "admission-chain.platformNamespaces" -}}
eks: [amazon-cloudwatch, amazon-guardduty, aws-observability]
gke: [config-management-system, gke-connect, gke-gmp-system, gke-managed-checkpointing, gke-managed-cim, gke-managed-filestorecsi, gke-managed-lustrecsi, gke-managed-parallelstorecsi, gke-managed-system, gke-managed-volumepopulator, gke-system, gmp-public, gmp-system]
aks: [aks-istio-system, app-routing-system, calico-system, gatekeeper-system, tigera-operator]
{{- end }}

{{/* YAML list of the enabled plugin names, in server order. */}}
{{- define "admission-chain.enabledPlugins" -}}
{{- $enabled := list }}
{{- range $name := include "admission-chain.pluginOrder" . | fromYamlArray }}
{{- $plugin := get $.Values.plugins $name }}
{{- if and $plugin $plugin.enabled }}
{{- $enabled = append $enabled $name }}
{{- end }}
{{- end }}
{{- if not $enabled }}
{{- fail "enable at least one plugin under plugins: (none is enabled)" }}
{{- end }}
{{- toYaml $enabled }}
{{- end }}

{{/*
Webhook rules for one phase ("mutating" or "validating"): the enabled plugins' rules merged per
group/resource/scope. A wildcard rule covers everything, so when ORPE is on it is the only rule.
Call with (list $ "mutating").
*/}}
{{- define "admission-chain.webhookRules" -}}
{{- $root := index . 0 }}
{{- $phase := index . 1 }}
{{- $catalog := include "admission-chain.pluginCatalog" $root | fromYaml }}
{{- $merged := dict }}
{{- range $name := include "admission-chain.enabledPlugins" $root | fromYamlArray }}
{{- range $rule := (get (get $catalog $name) $phase | default list) }}
{{- $key := printf "%s|%s|%s" $rule.group $rule.resource $rule.scope }}
{{- $entry := get $merged $key | default (dict "rule" $rule "operations" list) }}
{{- $_ := set $entry "operations" (concat $entry.operations $rule.operations | uniq | sortAlpha) }}
{{- $_ := set $merged $key $entry }}
{{- end }}
{{- end }}
{{- $keys := keys $merged | sortAlpha }}
{{- range $key := $keys }}
{{- if hasSuffix "|*/*|*" $key }}
{{- $keys = list $key }}
{{- end }}
{{- end }}
{{- $rules := list }}
{{- range $key := $keys }}
{{- $entry := get $merged $key }}
{{- $rules = append $rules (dict "apiGroups" (list $entry.rule.group) "apiVersions" $entry.rule.versions "resources" (list $entry.rule.resource) "operations" $entry.operations "scope" $entry.rule.scope) }}
{{- end }}
{{- toYaml $rules }}
{{- end }}

{{/*
Requests that must never reach the webhook whatever the rules say: our own SubjectAccessReviews and
the API server's TokenReviews (calling out for them would recurse or stall authentication), Leases
(leader election and node heartbeats, every few seconds) and Nodes (cluster-scoped, so no
namespaceSelector can exclude them). Rules cannot subtract from ORPE's all-resources rule, so CEL does it.
With ORPE on, the kubelet's pods/status updates are left out as well: ORPE lets them through unchecked
and no other plugin looks at a status subresource, yet owned pods' updates carry ownerReferences.
With EventRateLimit on and ORPE off, events.k8s.io Events are left out: matchPolicy Equivalent would
send them converted to core ones for EventRateLimit's rule, upstream does not limit their kind, and
no other plugin looks at them (ORPE does: with it on they come, and EventRateLimit passes them by
their requestKind).
*/}}
{{- define "admission-chain.matchConditions" -}}
{{- $root := index . 0 }}
{{- $phase := index . 1 }}
- name: exclude-authorization-reviews
  expression: "!(request.resource.group == 'authorization.k8s.io' && request.resource.resource in ['subjectaccessreviews', 'selfsubjectaccessreviews', 'localsubjectaccessreviews', 'selfsubjectrulesreviews'])"
- name: exclude-authentication-reviews
  expression: "!(request.resource.group == 'authentication.k8s.io' && request.resource.resource in ['tokenreviews', 'selfsubjectreviews'])"
- name: exclude-leases
  expression: "!(request.resource.group == 'coordination.k8s.io' && request.resource.resource == 'leases')"
- name: exclude-nodes
  expression: "!(request.resource.group == '' && request.resource.resource == 'nodes')"
{{- if and (eq $phase "validating") (has "OwnerReferencesPermissionEnforcement" (include "admission-chain.enabledPlugins" $root | fromYamlArray)) }}
- name: exclude-pod-status
  expression: "!(request.resource.group == '' && request.resource.resource == 'pods' && has(request.subResource) && request.subResource == 'status')"
{{- end }}
{{- $enabledHere := include "admission-chain.enabledPlugins" $root | fromYamlArray }}
{{- if and (eq $phase "validating") (has "EventRateLimit" $enabledHere) (not (has "OwnerReferencesPermissionEnforcement" $enabledHere)) }}
- name: exclude-events-k8s-io-events
  expression: "!(request.requestResource.group == 'events.k8s.io' && request.requestResource.resource == 'events')"
{{- end }}
{{- if eq $phase "validating" }}
{{- with include "admission-chain.ownerReferenceWritesCondition" $root | trim }}
{{ . }}
{{- end }}
{{- end }}
{{- with (get $root.Values.webhooks $phase).matchConditions }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/*
ORPE allows at once any write where neither the new nor the old object carries ownerReferences
(upstream isChangingOwnerReferences: nil and empty lists are equal), so for the validating webhook
those writes need not leave the API server unless another enabled validating plugin handles the
resource. Same decisions, far fewer calls, and with failurePolicy Fail an outage only blocks writes
that carry ownerReferences. Empty unless ORPE is on and webhooks.validating.onlyOwnerReferenceWrites.
*/}}
{{- define "admission-chain.ownerReferenceWritesCondition" -}}
{{- $enabled := include "admission-chain.enabledPlugins" . | fromYamlArray }}
{{- if and .Values.webhooks.validating.onlyOwnerReferenceWrites (has "OwnerReferencesPermissionEnforcement" $enabled) }}
{{- $catalog := include "admission-chain.pluginCatalog" . | fromYaml }}
{{- $clauses := list }}
{{- range $name := without $enabled "OwnerReferencesPermissionEnforcement" }}
{{- range $rule := (get (get $catalog $name) "validating" | default list) }}
{{- $clauses = append $clauses (printf "(request.resource.group == '%s' && request.resource.resource == '%s')" $rule.group (first (splitList "/" $rule.resource))) }}
{{- end }}
{{- end }}
{{- $clauses = append (uniq $clauses) "(object != null && has(object.metadata) && has(object.metadata.ownerReferences))" }}
{{- $clauses = append $clauses "(oldObject != null && has(oldObject.metadata) && has(oldObject.metadata.ownerReferences))" }}
- name: only-owner-reference-writes-or-other-plugins
  expression: {{ join " || " $clauses | quote }}
{{- end }}
{{- end }}

{{/* The namespaces the webhook depends on (never sent to it), the platform preset's, then the configured ones. */}}
{{- define "admission-chain.excludedNamespaces" -}}
{{- $excluded := list .Release.Namespace "kube-system" "kube-node-lease" }}
{{- if eq .Values.tls.mode "cert-manager" }}
{{- $excluded = append $excluded .Values.tls.certManager.namespace }}
{{- end }}
{{- with .Values.webhooks.excludedNamespacesPreset }}
{{- $excluded = concat $excluded (get (include "admission-chain.platformNamespaces" $ | fromYaml) .) }}
{{- end }}
{{- toYaml (concat $excluded .Values.webhooks.excludedNamespaces | uniq) }}
{{- end }}

{{/* Keeps the webhook out of the namespaces it must never block, and out of opted-out ones. */}}
{{- define "admission-chain.namespaceSelector" -}}
matchExpressions:
  - key: kubernetes.io/metadata.name
    operator: NotIn
    values:
      {{- include "admission-chain.excludedNamespaces" . | nindent 6 }}
  - key: {{ .Values.webhooks.optOutLabel }}
    operator: NotIn
    values: ["true"]
{{- end }}

{{- define "admission-chain.webhookAnnotations" -}}
{{- if and (eq .Values.tls.mode "cert-manager") (not (include "admission-chain.manageRegistration" .)) }}
cert-manager.io/inject-ca-from: {{ printf "%s/%s-serving" .Release.Namespace (include "admission-chain.fullname" .) }}
{{- end }}
{{- if .Values.webhooks.aksAdmissionsEnforcerDisabled }}
admissions.enforcer/disabled: "true"
{{- end }}
{{- end }}

{{- define "admission-chain.clientConfig" -}}
{{- $root := index . 0 }}
{{- $path := index . 1 }}
{{- if $root.Values.webhooks.url }}
{{- $_ := include "admission-chain.urlHost" $root }}
url: {{ printf "%s%s" (trimSuffix "/" $root.Values.webhooks.url) $path | quote }}
{{- else }}
service:
  name: {{ include "admission-chain.fullname" $root }}
  namespace: {{ $root.Release.Namespace }}
  path: {{ $path }}
  port: {{ $root.Values.service.port }}
{{- end }}
{{- if eq $root.Values.tls.mode "secret" }}
caBundle: {{ include "admission-chain.secretCaBundle" $root }}
{{- end }}
{{- end }}

{{/* tls.secret.caBundle, checked: it must decode to a PEM certificate (a placeholder never passes). */}}
{{- define "admission-chain.secretCaBundle" -}}
{{- $bundle := required "tls.secret.caBundle is required when tls.mode is secret: the base64 of the PEM CA that signed tls.crt, e.g. --set tls.secret.caBundle=\"$(base64 < ca.crt | tr -d '\\n')\"" .Values.tls.secret.caBundle }}
{{- if not (contains "-----BEGIN CERTIFICATE-----" (b64dec $bundle)) }}
{{- fail "tls.secret.caBundle does not decode to a PEM certificate: give the base64 of the CA certificate that signed tls.crt (base64 < ca.crt | tr -d '\\n')" }}
{{- end }}
{{- $bundle }}
{{- end }}

{{/*
One configuration's webhooks (phase "mutating" or "validating") as a YAML list; empty when no
enabled plugin uses the phase. Rendered into the configuration, or into its template annotation
when the webhook registers them itself.
*/}}
{{- define "admission-chain.webhooks" -}}
{{- $root := index . 0 }}
{{- $phase := index . 1 }}
{{- $rules := include "admission-chain.webhookRules" (list $root $phase) | fromYamlArray }}
{{- if $rules }}
{{- $values := get $root.Values.webhooks $phase }}
- name: {{ ternary "mutate.admission-chain.io" "validate.admission-chain.io" (eq $phase "mutating") }}
  admissionReviewVersions: ["v1", "v1beta1"]
  clientConfig:
    {{- include "admission-chain.clientConfig" (list $root (ternary "/mutate" "/validate" (eq $phase "mutating"))) | trim | nindent 4 }}
  rules:
    {{- toYaml $rules | nindent 4 }}
  failurePolicy: {{ ternary $values.failurePolicy (include "admission-chain.validatingFailurePolicy" $root) (eq $phase "mutating") }}
  matchPolicy: Equivalent
  {{- if eq $phase "mutating" }}
  reinvocationPolicy: {{ $values.reinvocationPolicy }}
  {{- end }}
  sideEffects: None
  timeoutSeconds: {{ $root.Values.webhooks.timeoutSeconds }}
  namespaceSelector:
    {{- include "admission-chain.namespaceSelector" $root | nindent 4 }}
  {{- with $root.Values.webhooks.objectSelector }}
  objectSelector:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  matchConditions:
    {{- include "admission-chain.matchConditions" (list $root $phase) | trim | nindent 4 }}
{{- end }}
{{- end }}

{{/* A whole webhook configuration of one phase; nothing when no enabled plugin uses the phase. */}}
{{- define "admission-chain.webhookConfiguration" -}}
{{- $root := index . 0 }}
{{- $phase := index . 1 }}
{{- $webhooks := include "admission-chain.webhooks" (list $root $phase) | fromYamlArray }}
{{- if $webhooks }}
{{- $register := $root.Values.webhooks.registerWhenReady }}
apiVersion: admissionregistration.k8s.io/v1
kind: {{ ternary "MutatingWebhookConfiguration" "ValidatingWebhookConfiguration" (eq $phase "mutating") }}
metadata:
  name: {{ include "admission-chain.fullname" $root }}
  labels:
    {{- include "admission-chain.labels" $root | nindent 4 }}
  {{- $annotations := include "admission-chain.webhookAnnotations" $root | fromYaml | default dict }}
  {{- /* Argo CD applies sync waves in ascending order and deletes in descending order, waiting for
  each wave to be gone: a later wave than everything else (0) removes the configurations first. */}}
  {{- $_ := set $annotations "argocd.argoproj.io/sync-wave" "1" }}
  {{- if $register }}
  {{- $_ := set $annotations "admission-chain.io/webhooks" (toJson $webhooks) }}
  {{- end }}
  {{- with $annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- if not $register }}
webhooks:
  {{- toYaml $webhooks | nindent 2 }}
{{- end }}
{{- end }}
{{- end }}

{{/* The volume source of the client CA bundle (tls.clientCA): exactly one of its three sources. */}}
{{- define "admission-chain.clientCaVolume" -}}
{{- $ca := .Values.tls.clientCA }}
{{- $sources := 0 }}
{{- range list $ca.caBundle $ca.existingSecret $ca.existingConfigMap }}{{ if . }}{{ $sources = add1 $sources }}{{ end }}{{ end }}
{{- if ne (int $sources) 1 }}
{{- fail "tls.clientCA.enabled needs exactly one of tls.clientCA.caBundle (PEM), tls.clientCA.existingSecret or tls.clientCA.existingConfigMap" }}
{{- end }}
{{- if $ca.existingSecret }}
secret:
  secretName: {{ $ca.existingSecret }}
  items: [{key: {{ $ca.key | quote }}, path: {{ $ca.key | quote }}}]
{{- else }}
configMap:
  name: {{ $ca.existingConfigMap | default (printf "%s-client-ca" (include "admission-chain.fullname" .) | trunc 63 | trimSuffix "-") }}
  items: [{key: {{ $ca.key | quote }}, path: {{ $ca.key | quote }}}]
{{- end }}
{{- end }}

{{/*
kube-apiserver's AdmissionConfiguration file (apiserver.config.k8s.io/v1), as the server reads it with
--admission-control-config-file: an inline section for each enabled plugin that takes a configuration
(ImagePolicyWebhook, PodNodeSelector, PodTolerationRestriction, EventRateLimit), from its values; empty when none is enabled. Map keys
and strings are quoted and tolerations written as JSON, so no name or value can turn into a YAML 1.1
boolean or a float in exponent notation on the way.
*/}}
{{- define "admission-chain.admissionConfiguration" -}}
{{- $enabled := include "admission-chain.enabledPlugins" . | fromYamlArray }}
{{- $nodeSelector := has "PodNodeSelector" $enabled }}
{{- $tolerations := has "PodTolerationRestriction" $enabled }}
{{- $events := has "EventRateLimit" $enabled }}
{{- $imagePolicy := has "ImagePolicyWebhook" $enabled }}
{{- if or $nodeSelector $tolerations $events $imagePolicy }}
apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
{{- if $imagePolicy }}
{{- $config := .Values.plugins.ImagePolicyWebhook }}
  # kube-apiserver's imagePolicy block; the kubeconfig is the Secret mounted beside this file.
  - name: ImagePolicyWebhook
    configuration:
      imagePolicy:
        kubeConfigFile: {{ include "admission-chain.imagePolicyKubeConfigFile" . | quote }}
        allowTTL: {{ int ($config.allowTTL | default 0) }}
        denyTTL: {{ int ($config.denyTTL | default 0) }}
        retryBackoff: {{ int ($config.retryBackoff | default 0) }}
        defaultAllow: {{ $config.defaultAllow | default false }}
{{- end }}
{{- if $nodeSelector }}
{{- $config := .Values.plugins.PodNodeSelector }}
  # kube-apiserver's legacy PodNodeSelector format: the cluster default, then each namespace's whitelist.
  - name: PodNodeSelector
    configuration:
      podNodeSelectorPluginConfig:
      {{- if or $config.clusterDefaultNodeSelector $config.namespaceWhitelists }}
        {{- with $config.clusterDefaultNodeSelector }}
        clusterDefaultNodeSelector: {{ . | quote }}
        {{- end }}
        {{- range $namespace, $selector := $config.namespaceWhitelists }}
        {{ $namespace | quote }}: {{ $selector | quote }}
        {{- end }}
      {{- else }} {}
      {{- end }}
{{- end }}
{{- if $tolerations }}
{{- $config := .Values.plugins.PodTolerationRestriction }}
  - name: PodTolerationRestriction
    configuration:
      apiVersion: podtolerationrestriction.admission.k8s.io/v1alpha1
      kind: Configuration
      default:
        {{- include "admission-chain.tolerations" $config.defaultTolerations | trim | nindent 8 }}
      whitelist:
        {{- include "admission-chain.tolerations" $config.whitelist | trim | nindent 8 }}
{{- end }}
{{- if $events }}
  - name: EventRateLimit
    configuration:
      apiVersion: eventratelimit.admission.k8s.io/v1alpha1
      kind: Configuration
      limits:
        {{- include "admission-chain.eventRateLimits" . | trim | nindent 8 }}
{{- end }}
{{- end }}
{{- end }}

{{/*
EventRateLimit's limits, one JSON object a line: as given, or with qps and burst divided among the
replicas (rounded up, so never below 1) when divideAmongReplicas is set.
*/}}
{{- define "admission-chain.eventRateLimits" -}}
{{- $config := .Values.plugins.EventRateLimit }}
{{- if not $config.limits }}
{{- fail "plugins.EventRateLimit.limits: give at least one limit ({type, qps, burst}): kube-apiserver will not start EventRateLimit without one, and neither will the webhook" }}
{{- end }}
{{- $replicas := 1 }}
{{- if $config.divideAmongReplicas }}
{{- $replicas = int (ternary .Values.autoscaling.minReplicas .Values.replicaCount .Values.autoscaling.enabled) }}
{{- if lt $replicas 1 }}{{ $replicas = 1 }}{{ end }}
{{- end }}
{{- range $config.limits }}
{{- $limit := dict "type" .type "qps" (div (add (int .qps) (sub $replicas 1)) $replicas) "burst" (div (add (int .burst) (sub $replicas 1)) $replicas) }}
{{- if .cacheSize }}{{ $_ := set $limit "cacheSize" (int .cacheSize) }}{{ end }}
- {{ toJson $limit }}
{{- end }}
{{- end }}

{{/* A YAML list of tolerations, one JSON object a line; [] when there are none. */}}
{{- define "admission-chain.tolerations" -}}
{{- if . }}
{{- range . }}
- {{ toJson . }}
{{- end }}
{{- else }}[]
{{- end }}
{{- end }}

{{/* Where ImagePolicyWebhook's kubeconfig Secret is mounted, and the file in it. */}}
{{- define "admission-chain.imagePolicyDir" -}}/etc/admission-chain/image-policy{{- end }}

{{- define "admission-chain.imagePolicyKubeConfigFile" -}}
{{- $secret := .Values.plugins.ImagePolicyWebhook.kubeConfigSecret | default dict }}
{{- printf "%s/%s" (include "admission-chain.imagePolicyDir" .) ($secret.key | default "kubeconfig") }}
{{- end }}

{{/* The name of ImagePolicyWebhook's kubeconfig Secret; fails when the plugin is on without one. */}}
{{- define "admission-chain.imagePolicySecretName" -}}
{{- $secret := .Values.plugins.ImagePolicyWebhook.kubeConfigSecret | default dict }}
{{- required "plugins.ImagePolicyWebhook.kubeConfigSecret.name: name the Secret holding the ImageReview backend's kubeconfig: kube-apiserver will not start ImagePolicyWebhook without one, and neither will the webhook" $secret.name }}
{{- end }}

{{- define "admission-chain.admissionConfigurationName" -}}
{{- printf "%s-admission-configuration" (include "admission-chain.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}
