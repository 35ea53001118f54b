import type { Middleware } from 'koa';
import { DbError } from '../../storage/errors.js';

export interface RateLimitOptions {
  /** Tokens added per second. */
  rate: number;
  /** Bucket size: the burst a quiet client may send at once. */
  burst: number;
  /** Most clients tracked; the longest-idle are forgotten first (a forgotten client starts full). */
  maxClients?: number;
  now?: () => number;
}

export interface Bucket {
  tokens: number;
  updated: number;
}

/**
 * A token bucket per client address. Every response carries X-RateLimit-Limit (per second),
 * X-RateLimit-Remaining and X-RateLimit-Reset (seconds until the bucket is full again); a
 * request with no token left is a 429 with Retry-After.
 */
export function rateLimit(options: RateLimitOptions): Middleware {
  const { rate, burst } = options;
  const take = tokenBuckets(options);
  return async (ctx, next) => {
    const { allowed, bucket } = take(ctx.ip);
    ctx.set('X-RateLimit-Limit', String(rate));
    ctx.set('X-RateLimit-Remaining', String(Math.floor(bucket.tokens)));
    ctx.set('X-RateLimit-Reset', String(Math.ceil((burst - bucket.tokens) / rate)));
    if (!allowed) {
      const wait = Math.max(1, Math.ceil((1 - bucket.tokens) / rate));
      ctx.set('Retry-After', String(wait));
      throw new DbError(429, `too many requests: the limit is ${rate} per second with bursts of ${burst}; retry after ${wait} s`);
    }
    await next();
  };
}

/** The buckets alone: `take(client)` spends one token if there is one (Bolt spends one per query). */
export function tokenBuckets({ rate, burst, maxClients = 100_000, now = () => performance.now() / 1000 }: RateLimitOptions): (client: string) => { allowed: boolean; bucket: Bucket } {
  const buckets = new Map<string, Bucket>();
  return (client: string): { allowed: boolean; bucket: Bucket } => {
    const t = now();
    let bucket = buckets.get(client);
    if (bucket) {
      buckets.delete(client);
      bucket.tokens = Math.min(burst, bucket.tokens + (t - bucket.updated) * rate);
      bucket.updated = t;
    } else {
      bucket = { tokens: burst, updated: t };
      if (buckets.size >= maxClients) buckets.delete(buckets.keys().next().value!);
    }
    buckets.set(client, bucket);
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    return { allowed, bucket };
  };
}
