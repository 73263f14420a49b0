// `admission-chain authorize`: an offline SubjectAccessReview against the RBAC objects of a
// cluster-state file, answered by the embedded RBAC authorizer with upstream's reasons.
//
//   authorize [FILE|-] --cluster-state STATE
//       reads a SubjectAccessReview (JSON or YAML) from FILE or stdin and prints it, as JSON, with
//       `status` filled in — what `kubectl create -f sar.yaml -o json` prints. Exit 0 whatever
//       the answer; an invalid review is the API's 422 message.
//   authorize --as USER [--as-group G]... [-n NS | -A] VERB RESOURCE[.GROUP][/SUBRESOURCE] [NAME]
//   authorize --as USER [--as-group G]... VERB /NON-RESOURCE-URL
//       like `kubectl auth can-i --as`: the identity is completed the way impersonation completes
//       it (a service account without --as-group gets its system:serviceaccounts groups, every
//       user but system:anonymous gets system:authenticated); the namespace defaults to
//       "default" as kubectl's does. Prints "yes" or "no", each followed by " - <reason>" when
//       there is one (and " - <evaluationError>" for no); after a "no", what is missing, the
//       nearest existing grant, and the smallest Role and binding that would answer yes (for a
//       FILE, on stderr, beside the printed review).
//
// Exit codes: 0 yes (or a printed review), 1 no (as kubectl auth can-i), 2 bad usage or input.
// RBAC warnings about the cluster state (see lintWarnings) go to stderr unless --quiet.
import { type Command, CommanderError } from 'commander';
import { FactType } from '../admission/explanation.ts';
import { isDNS1123Label, isDNS1123Subdomain } from '../api/label-validation.ts';
import { isStatusError } from '../api/status-error.ts';
import { attributesFromSpec } from '../authorization/conversion.ts';
import { decodeSubjectAccessReview, SubjectAccessReviewDecodeError } from '../authorization/decode.ts';
import { reviewSubjectAccess } from '../authorization/review.ts';
import {
  type SubjectAccessReview,
  type SubjectAccessReviewSpec,
  type SubjectAccessReviewStatus,
  subjectAccessReviewApiVersion,
  subjectAccessReviewKind,
} from '../authorization/subject-access-review.ts';
import { createExplainer } from '../explain/index.ts';
import { type AuthorizationResult, Decision } from '../ports/authorizer.ts';
import { type LocalAuthorizer, loadLocalAuthorizer } from '../wiring/index.ts';
import { explanationLines, objectsYaml } from './explanation-text.ts';
import { CliError, type CliIO, parseSingleDocument, processIO, readInput } from './io.ts';

export const AuthorizeExitCode = { Yes: 0, No: 1, Usage: 2 } as const;

interface AuthorizeOptions {
  clusterState: string;
  as?: string;
  asGroup: string[];
  asUid?: string;
  namespace?: string;
  allNamespaces?: boolean;
  quiet?: boolean;
}

const collect = (value: string, previous: string[]) => [...previous, value];

export function registerAuthorizeCommand(program: Command, io: CliIO = processIO): void {
  program
    .command('authorize')
    .description(
      'answer a SubjectAccessReview (FILE or stdin), or a `kubectl auth can-i`-style question with --as, from the RBAC objects of a cluster-state file',
    )
    .argument('[args...]', 'FILE or "-" (default stdin); with --as: VERB RESOURCE[.GROUP][/SUBRESOURCE] [NAME], or VERB /URL')
    .requiredOption('--cluster-state <file>', 'the local cluster state holding Roles, ClusterRoles and their bindings')
    .option('--as <user>', 'ask for this user (can-i form)')
    .option('--as-group <group>', 'a group of that user (repeatable)', collect, [])
    .option('--as-uid <uid>', 'the uid of that user')
    .option('-n, --namespace <namespace>', 'the namespace of the request (can-i form; default "default")')
    .option('-A, --all-namespaces', 'ask across all namespaces: only ClusterRoleBindings apply')
    .option('-q, --quiet', 'print nothing; answer with the exit code only (and no warnings)')
    .action(async (args: string[], options: AuthorizeOptions) => {
      await runAuthorize(args, options, io).catch((error: unknown) => {
        throw asCliError(error);
      });
    });
}

async function runAuthorize(args: string[], options: AuthorizeOptions, io: CliIO): Promise<void> {
  const canI = options.as !== undefined || options.asGroup.length > 0 || options.asUid !== undefined;
  const question = canI ? canIReview(args, options) : undefined;
  if (!canI && args.length > 1) {
    throw new CliError(
      `expected at most one FILE, got ${args.length} arguments; to ask "can USER VERB RESOURCE", give --as USER`,
      AuthorizeExitCode.Usage,
    );
  }
  const authorizer = await loadLocalAuthorizer(options.clusterState);
  if (!options.quiet) for (const warning of authorizer.lintWarnings()) io.stderr.write(`Warning: ${warning}\n`);

  if (question === undefined) {
    const { text, source } = await readInput(args[0], io);
    const review = decode(parseSingleDocument(text, source), source);
    const answered = await reviewSubjectAccess(review, authorizer);
    io.stdout.write(`${JSON.stringify(answered, null, 2)}\n`);
    // The review itself is the output; what would allow it goes beside it, on stderr.
    if (!answered.status!.allowed && !options.quiet) io.stderr.write(suggestion(review, answered.status!, authorizer));
    return;
  }
  const status = (await reviewSubjectAccess(question, authorizer)).status!;
  if (!options.quiet) {
    if (status.allowed) io.stdout.write(`yes${status.reason ? ` - ${status.reason}` : ''}\n`);
    else
      io.stdout.write(
        `no${status.reason ? ` - ${status.reason}` : ''}${status.evaluationError ? ` - ${status.evaluationError}` : ''}\n${suggestion(question, status, authorizer)}`,
      );
  }
  if (!status.allowed) throw new CommanderError(AuthorizeExitCode.No, 'admission-chain.authorize.no', 'no');
}

/** After a "no": what is missing, the nearest grant there is, and the Role and binding that would say yes. */
function suggestion(review: SubjectAccessReview, status: SubjectAccessReviewStatus, authorizer: LocalAuthorizer): string {
  const answer: AuthorizationResult = {
    decision: status.denied ? Decision.Deny : Decision.NoOpinion,
    reason: status.reason ?? '',
    ...(status.evaluationError ? { error: status.evaluationError } : {}),
  };
  const explained = createExplainer({ grants: authorizer.grants }).explain(
    { facts: [{ type: FactType.Authorization, attributes: attributesFromSpec(review.spec), answer }] },
    { mutatingPlugins: [] },
  );
  const yaml = objectsYaml(explained.objects);
  return `${explanationLines(explained).join('\n')}\n${yaml === '' ? '' : `---\n${yaml}`}`;
}

function decode(value: unknown, source: string): SubjectAccessReview {
  try {
    return decodeSubjectAccessReview(value);
  } catch (error) {
    if (error instanceof SubjectAccessReviewDecodeError) throw new CliError(`${source}: ${error.message}`, AuthorizeExitCode.Usage);
    throw error;
  }
}

/** The review `kubectl auth can-i --as` makes the server evaluate. */
export function canIReview(
  args: readonly string[],
  options: Pick<AuthorizeOptions, 'as' | 'asGroup' | 'asUid' | 'namespace' | 'allNamespaces'>,
): SubjectAccessReview {
  if (options.as === undefined) {
    throw new CliError('--as-group and --as-uid need --as: impersonating groups without a user is not allowed', AuthorizeExitCode.Usage);
  }
  const [verb, target, name, ...rest] = args;
  if (verb === undefined || target === undefined || rest.length > 0) {
    throw new CliError('with --as, give VERB RESOURCE[.GROUP][/SUBRESOURCE] [NAME] or VERB /URL', AuthorizeExitCode.Usage);
  }
  const spec: SubjectAccessReviewSpec = { user: options.as, groups: impersonatedGroups(options.as, options.asGroup) };
  if (options.asUid !== undefined) spec.uid = options.asUid;
  if (target.startsWith('/')) {
    if (name !== undefined) throw new CliError('a non-resource URL takes no NAME', AuthorizeExitCode.Usage);
    spec.nonResourceAttributes = { verb, path: target };
  } else {
    const slash = target.indexOf('/');
    const groupResource = slash < 0 ? target : target.slice(0, slash);
    const subresource = slash < 0 ? '' : target.slice(slash + 1);
    const dot = groupResource.indexOf('.');
    const resource = dot < 0 ? groupResource : groupResource.slice(0, dot);
    const group = dot < 0 ? '' : groupResource.slice(dot + 1);
    if (resource === '') throw new CliError(`${JSON.stringify(target)}: no resource named`, AuthorizeExitCode.Usage);
    const namespace = options.allNamespaces ? '' : (options.namespace ?? 'default');
    spec.resourceAttributes = { namespace, verb, group, resource, ...(subresource ? { subresource } : {}), ...(name ? { name } : {}) };
  }
  return { apiVersion: subjectAccessReviewApiVersion, kind: subjectAccessReviewKind, spec };
}

/** serviceaccount.SplitUsername: system:serviceaccount:<namespace>:<name>, both valid names. */
function serviceAccountNamespace(username: string): string | undefined {
  const prefix = 'system:serviceaccount:';
  if (!username.startsWith(prefix)) return undefined;
  const parts = username.slice(prefix.length).split(':');
  if (parts.length !== 2) return undefined;
  const [namespace, name] = parts as [string, string];
  return isDNS1123Label(namespace) && isDNS1123Subdomain(name).length === 0 ? namespace : undefined;
}

/** How the impersonation filter completes the groups of an impersonated user. */
export function impersonatedGroups(username: string, requested: readonly string[]): string[] {
  let groups = [...requested];
  const namespace = serviceAccountNamespace(username);
  if (namespace !== undefined && groups.length === 0) groups = ['system:serviceaccounts', `system:serviceaccounts:${namespace}`];
  if (username !== 'system:anonymous') {
    if (!groups.includes('system:authenticated') && !groups.includes('system:unauthenticated')) groups.push('system:authenticated');
  } else if (!groups.includes('system:unauthenticated')) {
    groups.push('system:unauthenticated');
  }
  return groups;
}

/** Every failure is one line on stderr with exit code 2; a "no" passes through untouched. */
function asCliError(error: unknown): unknown {
  if (error instanceof CommanderError) return error;
  if (error instanceof CliError)
    return error.exitCode === AuthorizeExitCode.Usage ? error : new CliError(error.message, AuthorizeExitCode.Usage);
  if (isStatusError(error)) return new CliError(error.message, AuthorizeExitCode.Usage);
  return new CliError(error instanceof Error ? error.message : String(error), AuthorizeExitCode.Usage);
}
