import { Document } from '@langchain/core/documents';
import { Embeddings } from '@langchain/core/embeddings';

export const BAG_DIMENSIONS = 16;

/**
 * A deterministic embedding for tests: each word adds 1 at a position hashed from it, so texts
 * sharing words are close under Cosine. It is a test input for LangChain, not a stand-in for the
 * server (which is the real one).
 */
export class BagOfWordsEmbeddings extends Embeddings {
  constructor() {
    super({});
  }

  static vector(text: string): number[] {
    const v = new Array<number>(BAG_DIMENSIONS).fill(0);
    for (const word of text.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean)) {
      let h = 2166136261;
      for (const ch of word) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
      v[(h >>> 0) % BAG_DIMENSIONS]! += 1;
    }
    v[BAG_DIMENSIONS - 1]! += 0.01;
    return v;
  }

  embedDocuments(texts: string[]): Promise<number[][]> {
    return Promise.resolve(texts.map((t) => BagOfWordsEmbeddings.vector(t)));
  }

  embedQuery(text: string): Promise<number[]> {
    return Promise.resolve(BagOfWordsEmbeddings.vector(text));
  }
}

/** Five short texts on two topics (pets, code), numbered 1 to 5 in their metadata. */
export const docs = [
  new Document({ pageContent: 'cats purr and sleep all day', metadata: { topic: 'pets', n: 1 } }),
  new Document({ pageContent: 'dogs bark and fetch the ball', metadata: { topic: 'pets', n: 2 } }),
  new Document({ pageContent: 'rust compiles to fast native code', metadata: { topic: 'code', n: 3 } }),
  new Document({ pageContent: 'typescript compiles to javascript code', metadata: { topic: 'code', n: 4 } }),
  new Document({ pageContent: 'cats chase mice and sleep', metadata: { topic: 'pets', n: 5 } }),
];
