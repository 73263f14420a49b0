// Explaining denials: facts a plugin attached to its rejection, made into warnings, commands and YAML.
export { createExplainer, explanationText, type ExplainContext, type Explained, type Explainer, type ExplainerOptions } from './explainer.ts';
export { minimalGrants, type Grant } from './grant.ts';
export { maxAnnotationBytes, maxWarningRunes, maxWarningTotalRunes, maxWarningsPerExplanation } from './limits.ts';
