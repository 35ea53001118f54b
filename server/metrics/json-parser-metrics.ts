import { Gauge, type Registry } from 'prom-client';
import type { JsonParsers } from '../../workers/json-parsers.js';
import { followTotal } from './follow-total.js';

/** The JSON parser threads, read on scrape: how many, the bodies they parsed, and how many stopped unasked. */
export function jsonParserMetrics(registry: Registry, parsers: JsonParsers | null): void {
  new Gauge({ name: 'vgdb_json_parser_threads', help: 'Threads parsing large JSON bodies of the vector routes off the request thread (0: SERVICE_JSON_OFF_THREAD_BYTES=0)', registers: [registry] }).set(parsers?.size ?? 0);
  if (!parsers) return;
  followTotal(registry, 'vgdb_json_bodies_parsed_off_thread_total', 'JSON request bodies parsed on a parser thread (SERVICE_JSON_OFF_THREAD_BYTES)', () => parsers.parsed);
  followTotal(registry, 'vgdb_json_parser_stops_total', 'JSON parser threads that stopped unasked (the bodies they held answered 500)', () => parsers.stopped);
}
