/** What the official Qdrant client shows for a refused call, "STATUS message" (Qdrant's error body, status.error); throws when the call succeeds. */
export async function refusal(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (err) {
    const e = err as { status?: number; data?: { status?: { error?: string } } };
    return `${e.status} ${e.data?.status?.error}`;
  }
  throw new Error('the call was not refused');
}
