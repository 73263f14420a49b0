// Explaining denials: facts a plugin attached to its rejection, made into warnings, commands and YAML.
export {
  createExplainer,
  type ExplainContext,
  type Explained,
  type Explainer,
  type ExplainerOptions,
  explanationText,
} from './explainer.ts';
export { type Grant, minimalGrants } from './grant.ts';
export { maxAnnotationBytes, maxWarningRunes, maxWarningsPerExplanation, maxWarningTotalRunes } from './limits.ts';
