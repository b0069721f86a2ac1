// The names FISCO 2.x stores tables under, by supported_version. 2.2.0 shortened them
// (libprecompiled/Common.cpp getTableName, getContractTableName; libstoragestate/StorageState.cpp
// createAccount and getTable): a user table `_user_<name>` became `u_<name>`
// (USER_TABLE_PREFIX_SHORT), an account `_contract_data_<address>_` became `c_<address>`
// (CONTRACT_TABLE_PREFIX_SHORT). The names are part of the storage state, so of every dbHash of
// a block that creates or writes such a table, and of the `_sys_tables_` and `_sys_table_access_`
// rows that name them.

export type UserTablePrefix = 'u_' | '_user_';

export class TableNames {
  /** supported_version ≥ 2.2.0. */
  static readonly SHORT = new TableNames('u_');
  /** Before 2.2.0. */
  static readonly LONG = new TableNames('_user_');

  private constructor(readonly userTablePrefix: UserTablePrefix) {}

  /**
   * Whether createTable checks the table's and its fields' names (checkNameValidate): from 2.2.0,
   * the version that shortened the names.
   */
  get validatesNames(): boolean {
    return this.userTablePrefix === 'u_';
  }

  /** getTableName: the table a user's `name` is stored under. */
  userTable(name: string): string {
    return `${this.userTablePrefix}${name}`;
  }

  /** An account's (and a contract's storage) table, for its address as lower-case hex with or without 0x (the state asks per slot: no case folding here). */
  accountTable(address: string): string {
    const hex = address.startsWith('0x') ? address.slice(2) : address;
    return this.userTablePrefix === 'u_' ? `c_${hex}` : `_contract_data_${hex}_`;
  }
}
