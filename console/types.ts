/** The API's answers the console reads (the `result` of each), as the README describes them. */
export type PointId = number | string;

export interface CollectionInfo {
  name: string;
  status: string;
  points_count: number;
  indexed_vectors_count: number;
  vectors_count?: number;
  config: { params?: { vectors?: { size: number; distance: string } }; hnsw_config?: { m: number; ef_construct: number } };
}

export interface Point {
  id: PointId;
  payload?: Record<string, unknown>;
  labels?: string[];
  vector?: number[] | null;
}

export interface ScoredPoint extends Point {
  score: number;
}

export interface Neighbor {
  id: PointId;
  weight: number;
  relation: string;
}

export interface CypherNode {
  id: PointId;
  labels: string[];
  properties: Record<string, unknown>;
}

export interface CypherRelationship {
  id: PointId;
  type: string;
  start: PointId;
  end: PointId;
  properties: Record<string, unknown>;
}

export interface CypherResult {
  columns: string[];
  rows: unknown[][];
  stats: { nodes_scanned: number; rows_returned: number; execution_time_ms: number };
}

export type Filter = Record<string, unknown>;
