/**
 * A temporal value that cannot be built or parsed. The Cypher layer reports it with the TCK's
 * error name (`kind`), e.g. ArgumentError (InvalidArgumentValue).
 */
export class TemporalError extends Error {
  constructor(
    readonly kind: 'InvalidArgumentValue' | 'UnknownTimeZone' | 'TemporalOverflow',
    message: string,
  ) {
    super(message);
    this.name = 'TemporalError';
  }
}

export const invalid = (message: string): TemporalError => new TemporalError('InvalidArgumentValue', message);
