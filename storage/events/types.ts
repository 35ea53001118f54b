/** The mutations the database records. Each is one log entry and applies all or nothing. */
export type Distance = 'Cosine' | 'Euclid' | 'Dot';
export const DISTANCES: readonly Distance[] = ['Cosine', 'Euclid', 'Dot'];

export interface CollectionConfig {
  size: number;
  distance: Distance;
  m: number;
  m0: number;
  efConstruct: number;
  ml: number;
}

export type Payload = Record<string, unknown>;

export interface PointRecord {
  id: number;
  /** Null for a node without a vector (such a point is never a search result). */
  vector: Float32Array | null;
  payload: Payload;
  labels: string[];
}

export interface CreateCollectionEvent {
  type: 'create_collection';
  name: string;
  config: CollectionConfig;
}

export interface DeleteCollectionEvent {
  type: 'delete_collection';
  name: string;
}

export interface UpsertPointsEvent {
  type: 'upsert_points';
  collection: string;
  points: PointRecord[];
}

export interface DeletePointsEvent {
  type: 'delete_points';
  collection: string;
  ids: number[];
}

export type DbEvent = CreateCollectionEvent | DeleteCollectionEvent | UpsertPointsEvent | DeletePointsEvent;
