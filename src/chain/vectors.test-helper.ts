import { readFileSync } from 'node:fs';

export interface TxVector {
  name: string;
  generation: 'rc1' | 'rc2';
  suite: string;
  raw: string;
  hash: string;
  from: string;
  signingHash?: string;
}

export interface Vectors {
  transactions: TxVector[];
  blocks: Array<{
    name: string;
    header: Record<string, string | string[]>;
    hash: string;
    transactions: string[];
    signatureList: Array<{ index: string; signature: string }>;
  }>;
  receipts: Array<{ gasUsed: string; status: string; output: string; receiptsRoot: string }>;
}

/** The verified FISCO 2.x vectors (copied from shared/reference/vectors.json). */
export const vectors: Vectors = JSON.parse(
  readFileSync(new URL('../../fixtures/vectors/fisco-2x.json', import.meta.url), 'utf8'),
) as Vectors;
