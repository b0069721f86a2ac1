import { CodecError } from '../codec/index.js';
import type { InterfaceVariant } from '../codec/index.js';
import { TableNames } from './table-names.js';

/** The numbers of the versions compared against (a handful of literals, asked per transaction and receipt). */
const thresholds = new Map<string, number>();

/**
 * A `[compatibility] supported_version` as FISCO numbers it: 2.0.0-rc1 → 1, -rc2 → 2, -rc3 → 3,
 * x.y.z → 0xXXYYZZ00 (2.11.0 = 0x020b0000). Comparisons follow the number.
 */
export class ProtocolVersion {
  private constructor(
    readonly text: string,
    readonly number: number,
  ) {}

  static parse(text: string): ProtocolVersion {
    const rc = /^2\.0\.0-rc([123])$/.exec(text);
    if (rc) return new ProtocolVersion(text, Number(rc[1]));
    const m = /^(\d+)\.(\d+)\.(\d+)$/.exec(text);
    if (!m) throw new CodecError('supported_version', text, 'expected x.y.z or 2.0.0-rcN');
    const [major, minor, patch] = [Number(m[1]), Number(m[2]), Number(m[3])];
    if (major !== 2 || minor > 255 || patch > 255) {
      throw new CodecError('supported_version', text, 'only FISCO BCOS 2.x versions (2.0.0-rc1 … 2.255.255) are supported');
    }
    return new ProtocolVersion(text, ((major << 24) | (minor << 16) | (patch << 8)) >>> 0);
  }

  atLeast(text: string): boolean {
    let threshold = thresholds.get(text);
    if (threshold === undefined) thresholds.set(text, (threshold = ProtocolVersion.parse(text).number));
    return this.number >= threshold;
  }

  /** rc1 payloads (7 + 3 fields) before 2.0.0-rc2, rc2 payloads (10 + 3) from then on. */
  get txGeneration(): TxGeneration {
    return this.number >= 2 ? 'rc2' : 'rc1';
  }

  /** The JSON-RPC interface variant: earlier for 2.0.0-rc1, later for anything newer. */
  get interfaceVariant(): InterfaceVariant {
    return this.number <= 1 ? 'earlier' : 'later';
  }

  /** Transaction and receipt roots: 16-ary Merkle from 2.2.0; hash of the encoded list from rc2; a trie before. */
  get rootScheme(): RootScheme {
    if (this.atLeast('2.2.0')) return 'merkle16';
    return this.number >= 2 ? 'flat-hash' : 'trie';
  }

  /** Receipts gain `remainGas` (8 RLP items) and per-transaction gasUsed from 2.9.0. */
  get receiptHasRemainGas(): boolean {
    return this.atLeast('2.9.0');
  }

  /**
   * How a precompiled contract writes a return code (getErrorCodeOut): as an int256 from
   * 2.0.0-rc3, as the code's magnitude (u256(-code)) in rc2, as its low byte in rc1.
   */
  get returnCodes(): ReturnCodeEncoding {
    if (this.number >= 3) return 'int256';
    return this.number === 2 ? 'rc2' : 'rc1';
  }

  /** CRUD's update refuses an entry that names the table's key field (-51503) from 2.7.0; before, the key field is skipped. */
  get crudRefusesKeyUpdate(): boolean {
    return this.atLeast('2.7.0');
  }

  /**
   * A precompiled call that throws a plain exception (not FISCO's PrecompiledException) outputs
   * its message as Error(string) from 2.3.0 (Executive's writeErrInfoToOutput); before, nothing.
   */
  get exceptionOutput(): boolean {
    return this.atLeast('2.3.0');
  }

  /**
   * Permission's grantWrite, revokeWrite and queryPermission (a contract's write permission) exist
   * from 2.3.0: PermissionPrecompiled registers their selectors only then.
   */
  get contractWritePermission(): boolean {
    return this.atLeast('2.3.0');
  }

  /** The names tables are stored under: shortened from 2.2.0 (`u_<name>`, `c_<address>`; table-names.ts). */
  get tableNames(): TableNames {
    return this.atLeast('2.2.0') ? TableNames.SHORT : TableNames.LONG;
  }

  toString(): string {
    return this.text;
  }
}


export type TxGeneration = 'rc1' | 'rc2';
export type ReturnCodeEncoding = 'int256' | 'rc2' | 'rc1';
export type RootScheme = 'merkle16' | 'flat-hash' | 'trie';

/** What build_chain v2.11 writes, and what Twinchain defaults to. */
export const DEFAULT_SUPPORTED_VERSION = '2.11.0';
