import { seg, type Api } from '../api.js';
import type { CypherResult } from '../types.js';

/** The names completion offers: node labels, relationship types and property keys in use. */
export interface CypherSchema {
  labels: string[];
  relationshipTypes: string[];
  propertyKeys: string[];
}

/** How many nodes and relationships are sampled for names: enough to find them, bounded on a large graph. */
const SAMPLE = 5000;

const QUERIES: Record<keyof CypherSchema, string[]> = {
  labels: [`MATCH (n) WITH n LIMIT ${SAMPLE} UNWIND labels(n) AS name RETURN DISTINCT name`],
  relationshipTypes: [`MATCH ()-[r]->() WITH r LIMIT ${SAMPLE} RETURN DISTINCT type(r) AS name`],
  propertyKeys: [`MATCH (n) WITH n LIMIT ${SAMPLE} UNWIND keys(n) AS name RETURN DISTINCT name`, `MATCH ()-[r]->() WITH r LIMIT ${SAMPLE} UNWIND keys(r) AS name RETURN DISTINCT name`],
};

/** Reads the schema with read-only Cypher queries over the public API. */
export async function readSchema(api: Api, collection: string): Promise<CypherSchema> {
  const names = async (queries: string[]): Promise<string[]> => {
    const results = await Promise.all(queries.map((query) => api.post<CypherResult>(`/collections/${seg(collection)}/graph/query`, { query })));
    return [...new Set(results.flatMap((r) => r.rows.map((row) => String(row[0]))))].sort();
  };
  const [labels, relationshipTypes, propertyKeys] = await Promise.all([names(QUERIES.labels), names(QUERIES.relationshipTypes), names(QUERIES.propertyKeys)]);
  return { labels, relationshipTypes, propertyKeys };
}
