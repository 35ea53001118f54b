import type { EvalContext } from '../evaluate.js';
import type { Procedure, ProcedureRow } from './types.js';

/** Outside Bolt (a query over REST) nobody logged on: the user is Neo4j's default one. */
function sessionOf(ctx: EvalContext): { user: string; authEnabled: boolean } {
  return ctx.catalog?.session ?? { user: 'neo4j', authEnabled: false };
}

/**
 * The settings dbms.clientConfig() answers, under Neo4j 5's names: the ones Neo4j Browser and
 * cypher-shell read when they connect (whether to ask for credentials, what to keep, what to
 * fetch). Values are strings, as Neo4j lists its settings.
 */
function clientSettings(authEnabled: boolean): ProcedureRow[] {
  const settings: [string, string, string][] = [
    ['browser.allow_outgoing_connections', 'Whether Browser may fetch guides and other content from the internet.', 'false'],
    ['browser.credential_timeout', 'How long Browser keeps credentials after the last use (0s: no limit).', '0s'],
    ['browser.post_connect_cmd', 'Commands Browser runs after it connects.', ''],
    ['browser.remote_content_hostname_allowlist', 'Hosts Browser may fetch content from.', 'guides.neo4j.com,localhost'],
    ['browser.retain_connection_credentials', 'Whether Browser keeps credentials between sessions.', 'true'],
    ['browser.retain_editor_history', 'Whether Browser keeps the editor history.', 'true'],
    ['client.allow_telemetry', 'Whether clients may send usage data.', 'false'],
    ['dbms.security.auth_enabled', 'Whether connections must give credentials (an API key or bearer token here).', String(authEnabled)],
    ['server.metrics.prefix', 'The prefix of metric names.', 'neo4j'],
  ];
  return settings.map(([name, description, value]) => ({ name, description, value, dynamic: false }));
}

export const SESSION_PROCEDURES: Procedure[] = [
  {
    name: '$show.current.user',
    display: 'SHOW CURRENT USER',
    mode: 'read',
    minArgs: 0,
    maxArgs: 0,
    outputs: ['user', 'roles', 'passwordChangeRequired', 'suspended', 'home'],
    // Community edition's answer: no roles, no suspension, the default home database.
    run: (_args, ctx) => [{ user: sessionOf(ctx).user, roles: null, passwordChangeRequired: false, suspended: null, home: null }],
  },
  {
    name: 'dbms.showcurrentuser',
    display: 'dbms.showCurrentUser',
    mode: 'read',
    minArgs: 0,
    maxArgs: 0,
    outputs: ['username', 'roles', 'flags'],
    run: (_args, ctx) => [{ username: sessionOf(ctx).user, roles: null, flags: [] }],
  },
  {
    name: 'dbms.clientconfig',
    display: 'dbms.clientConfig',
    mode: 'read',
    minArgs: 0,
    maxArgs: 0,
    outputs: ['name', 'description', 'value', 'dynamic'],
    run: (_args, ctx) => clientSettings(sessionOf(ctx).authEnabled),
  },
];
