/** gRPC status codes (grpc/doc/statuscodes.md) the Qdrant gRPC port answers with. */
export const GrpcStatus = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

/** A call's failure: its gRPC status code and the message sent as grpc-message. */
export class GrpcError extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
    this.name = 'GrpcError';
  }
}

export const invalidArgument = (message: string): GrpcError => new GrpcError(GrpcStatus.INVALID_ARGUMENT, message);

/**
 * The gRPC code of a Qdrant REST answer's HTTP status, as Qdrant maps its errors to both
 * (a bad request is INVALID_ARGUMENT, a missing collection NOT_FOUND, a timeout DEADLINE_EXCEEDED).
 */
export function grpcStatusOfHttp(status: number): number {
  switch (status) {
    case 400:
    case 413:
    case 415:
    case 422:
      return GrpcStatus.INVALID_ARGUMENT;
    case 401:
      return GrpcStatus.UNAUTHENTICATED;
    case 403:
      return GrpcStatus.PERMISSION_DENIED;
    case 404:
      return GrpcStatus.NOT_FOUND;
    case 408:
    case 504:
      return GrpcStatus.DEADLINE_EXCEEDED;
    case 409:
      return GrpcStatus.ALREADY_EXISTS;
    case 412:
      return GrpcStatus.FAILED_PRECONDITION;
    case 429:
      return GrpcStatus.RESOURCE_EXHAUSTED;
    case 501:
      return GrpcStatus.UNIMPLEMENTED;
    case 503:
      return GrpcStatus.UNAVAILABLE;
    default:
      return status >= 500 ? GrpcStatus.INTERNAL : GrpcStatus.UNKNOWN;
  }
}
