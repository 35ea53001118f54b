import * as z from 'zod';

export const recoverSnapshotBody = z
  .strictObject({
    location: z.string().meta({ description: 'a file:// URL of a snapshot in this server\'s snapshots directory' }),
    priority: z.enum(['replica', 'snapshot', 'no_sync']).nullish().meta({ description: 'accepted: one node, so the snapshot always wins' }),
    checksum: z.string().nullish().meta({ description: 'the SHA-256 the file must have' }),
  })
  .meta({ id: 'RecoverSnapshotBody' });
