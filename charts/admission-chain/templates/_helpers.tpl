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
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/* The Secret the serving certificate lives in, whoever issues it. */}}
{{- define "admission-chain.tlsSecretName" -}}
{{- if eq .Values.tls.mode "cert-manager" }}
{{- printf "%s-tls" (include "admission-chain.fullname" .) }}
{{- else }}
{{- required "tls.secret.name is required when tls.mode is secret" .Values.tls.secret.name }}
{{- end }}
{{- end }}

{{/*
The plugins in the server's fixed order (upstream AllOrderedPlugins), and what each one is sent.
Each plugin only ever looks at these resources and operations, so the webhook rules are the union
over the enabled plugins: anything else never leaves the API server. Subresources are named
explicitly; ORPE alone needs every resource and subresource.
*/}}
{{- define "admission-chain.pluginOrder" -}}
- ServiceAccount
- AlwaysPullImages
- StorageObjectInUseProtection
- OwnerReferencesPermissionEnforcement
- RuntimeClass
{{- end }}

{{- define "admission-chain.pluginCatalog" -}}
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

{{/* Keeps the webhook out of the namespaces it must never block, and out of opted-out ones. */}}
{{- define "admission-chain.namespaceSelector" -}}
matchExpressions:
  - key: kubernetes.io/metadata.name
    operator: NotIn
    values:
      {{- toYaml (concat (list .Release.Namespace "kube-system" "kube-node-lease") .Values.webhooks.excludedNamespaces | uniq) | nindent 6 }}
  - key: {{ .Values.webhooks.optOutLabel }}
    operator: NotIn
    values: ["true"]
{{- end }}

{{- define "admission-chain.webhookAnnotations" -}}
{{- if eq .Values.tls.mode "cert-manager" }}
cert-manager.io/inject-ca-from: {{ printf "%s/%s-serving" .Release.Namespace (include "admission-chain.fullname" .) }}
{{- end }}
{{- if .Values.webhooks.aksAdmissionsEnforcerDisabled }}
admissions.enforcer/disabled: "true"
{{- end }}
{{- end }}

{{- define "admission-chain.clientConfig" -}}
{{- $root := index . 0 }}
{{- $path := index . 1 }}
service:
  name: {{ include "admission-chain.fullname" $root }}
  namespace: {{ $root.Release.Namespace }}
  path: {{ $path }}
  port: {{ $root.Values.service.port }}
{{- if eq $root.Values.tls.mode "secret" }}
caBundle: {{ required "tls.secret.caBundle (base64 PEM of the CA) is required when tls.mode is secret" $root.Values.tls.secret.caBundle }}
{{- end }}
{{- end }}
