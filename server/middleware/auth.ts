import { createHash, timingSafeEqual } from 'node:crypto';
import type { Middleware } from 'koa';
import { DbError } from '../../storage/errors.js';

const digest = (secret: string): Buffer => createHash('sha256').update(secret).digest();

/** Compares against every secret, always all of them, on fixed-length digests: no timing hints. */
function matchesAny(candidate: string, secrets: readonly Buffer[]): boolean {
  const d = digest(candidate);
  let found = false;
  for (const s of secrets) found = timingSafeEqual(d, s) || found;
  return found;
}

export interface AuthConfig {
  apiKeys: readonly string[];
  bearerTokens: readonly string[];
}

/**
 * API-key and bearer authentication, either or both. Credentials come in Authorization as
 * `ApiKey <key>` or `Bearer <token>`; Qdrant's clients send an API key as the `api-key` header,
 * which is accepted too. A missing, malformed or wrong credential is a 401 with WWW-Authenticate.
 * Mounted after the public endpoints, so those never need credentials.
 */
export function authenticate({ apiKeys, bearerTokens }: AuthConfig): Middleware {
  const keys = apiKeys.filter((k) => k.length > 0).map(digest);
  const tokens = bearerTokens.filter((t) => t.length > 0).map(digest);
  const challenge = [keys.length ? 'ApiKey realm="vectorgraphdb"' : '', tokens.length ? 'Bearer realm="vectorgraphdb"' : ''].filter(Boolean).join(', ');
  const schemes = [keys.length ? 'ApiKey <key>' : '', tokens.length ? 'Bearer <token>' : ''].filter(Boolean).join(' or ');

  return async (ctx, next) => {
    if (keys.length === 0 && tokens.length === 0) return next();
    const header = ctx.get('Authorization');
    const match = /^(\S+)\s+(\S.*)$/.exec(header);
    const scheme = match?.[1]!.toLowerCase();
    const secret = match?.[2]!.trim() ?? '';
    const apiKeyHeader = ctx.get('api-key');
    let ok = false;
    if (scheme === 'apikey' && keys.length) ok = matchesAny(secret, keys);
    else if (scheme === 'bearer' && tokens.length) ok = matchesAny(secret, tokens);
    else if (!header && apiKeyHeader && keys.length) ok = matchesAny(apiKeyHeader, keys);
    if (!ok) {
      ctx.set('WWW-Authenticate', challenge);
      const why = header || apiKeyHeader ? 'the credential is not valid' : 'credentials are required';
      throw new DbError(401, `${why}: send Authorization: ${schemes}`);
    }
    return next();
  };
}

/** The Authorization schemes configured (`ApiKey`, `Bearer`); none when authentication is off. */
export function credentialSchemes({ apiKeys, bearerTokens }: AuthConfig): string[] {
  return [apiKeys.some((k) => k.length > 0) ? 'ApiKey' : '', bearerTokens.some((t) => t.length > 0) ? 'Bearer' : ''].filter(Boolean);
}

/** Whether a secret is one of the API keys or bearer tokens (Bolt's credentials); null when authentication is off. */
export function secretChecker({ apiKeys, bearerTokens }: AuthConfig): ((secret: string) => boolean) | null {
  const secrets = [...apiKeys, ...bearerTokens].filter((s) => s.length > 0).map(digest);
  return secrets.length === 0 ? null : (secret) => matchesAny(secret, secrets);
}
