import type { BuildChainOptions } from './options.js';

/** One node of the chain as build-chain lays it out. */
export interface PlannedNode {
  readonly ip: string;
  /** Index among the nodes of its IP: the directory is `<ip>/node<index>`. */
  readonly index: number;
  /** Position in the whole chain: `node.<seq>` in [p2p] and in the genesis. */
  readonly seq: number;
  readonly p2pPort: number;
  readonly channelPort: number;
  readonly rpcPort: number;
}

/** Every node, IP by IP in `-l` order; node i of an IP uses the start ports + i. */
export function planNodes(options: BuildChainOptions): PlannedNode[] {
  const nodes: PlannedNode[] = [];
  for (const host of options.hosts) {
    for (let index = 0; index < host.count; index++) {
      nodes.push({
        ip: host.ip,
        index,
        seq: nodes.length,
        p2pPort: options.ports.p2p + index,
        channelPort: options.ports.channel + index,
        rpcPort: options.ports.rpc + index,
      });
    }
  }
  return nodes;
}

/**
 * Where channel and JSON-RPC listen: 0.0.0.0 with -i; otherwise loopback, on the node's own
 * address when that is a 127.x.y.z other than 127.0.0.1 (so several loopback IPs can share a
 * machine), else 127.0.0.1.
 */
export function serviceListenIp(ip: string, listenAll: boolean): string {
  if (listenAll) return '0.0.0.0';
  return ip.startsWith('127.') && ip !== '127.0.0.1' ? ip : '127.0.0.1';
}

/** A node's config.ini (FISCO 2.11 sections and keys; paths relative to the file's folder). */
export function configIni(options: BuildChainOptions, node: PlannedNode, all: readonly PlannedNode[]): string {
  const listen = serviceListenIp(node.ip, options.listenAll);
  const peers = all.map((n) => `    node.${n.seq}=${n.ip}:${n.p2pPort}`).join('\n');
  const security = options.sm
    ? `    ; the node private key file
    key=gmnode.key
    ; the node certificate file
    cert=gmnode.crt
    ; the ca certificate file
    ca_cert=gmca.crt
    ; the SM2 encryption key and certificate
    en_key=gmennode.key
    en_cert=gmennode.crt
    ; the secp256k1 TLS identity of the p2p transport (its certificate names the SM2 node id)
    tls_key=node.key
    tls_cert=node.crt
    tls_ca_cert=ca.crt`
    : `    ; the node private key file
    key=node.key
    ; the node certificate file
    cert=node.crt
    ; the ca certificate file
    ca_cert=ca.crt`;
  return `[rpc]
    channel_listen_ip=${listen}
    channel_listen_port=${node.channelPort}
    jsonrpc_listen_ip=${listen}
    jsonrpc_listen_port=${node.rpcPort}
    disable_dynamic_group=false
[p2p]
    listen_ip=${node.ip}
    listen_port=${node.p2pPort}
    ;enable_compress=true
    ; nodes to connect
${peers}

[certificate_blacklist]
    ; crl.0 should be nodeid, nodeid's length is 128
    ;crl.0=

[certificate_whitelist]
    ; cal.0 should be nodeid, nodeid's length is 128
    ;cal.0=

[group]
    group_data_path=data/
    group_config_path=conf/

[network_security]
    ; directory the certificates located in
    data_path=conf/
${security}

[storage_security]
    enable=false

[chain]
    id=${options.chainId}
    ; use SM crypto or not, should nerver be changed
    sm_crypto=${options.sm}
    sm_crypto_channel=false

[compatibility]
    ; supported_version should nerver be changed
    supported_version=${options.supportedVersion}

[log]
    enable=true
    log_path=./log
    enable_console_output=false
    ; info debug trace
    level=${options.debugLog ? 'debug' : 'info'}
    ; MB
    max_log_file_size=200
    flush=true
`;
}

/** conf/group.1.genesis: immutable after the first start; every node of the chain is a sealer. */
export function groupGenesis(options: BuildChainOptions, nodeIds: readonly string[], timestampMs: number): string {
  return `[consensus]
    ; consensus algorithm: pbft or raft
    consensus_type=${options.consensus}
    ; the max number of transactions of a block
    max_trans_num=1000
    ; in seconds, block consensus timeout, at least 3s
    consensus_timeout=3
    ; rpbft only: sealers working in each epoch, and blocks per epoch
    epoch_sealer_num=${nodeIds.length}
    epoch_block_num=1000
    ; the node id of consensusers
${nodeIds.map((id, i) => `    node.${i}=${id}`).join('\n')}
[state]
    type=${options.stateType ?? 'storage'}
[tx]
    ; transaction gas limit
    gas_limit=300000000
[group]
    id=1
    timestamp=${timestampMs}
[evm]
    enable_free_storage=false
`;
}

/** conf/group.1.ini: FISCO build_chain's group settings (read at every start). */
export function groupIni(): string {
  return `[consensus]
    ; the ttl for broadcasting pbft message
    ttl=2
    ; min block generation time(ms)
    min_block_generation_time=500
    enable_dynamic_block_size=true
    enable_ttl_optimization=true
    enable_prepare_with_txsHash=true
    ; rpbft: broadcast prepare requests by tree
    broadcast_prepare_by_tree=true
    ; rpbft: percent of nodes that prepare status is broadcast to, 25..100
    prepare_status_broadcast_percent=33
    ; rpbft: wait before requesting missed transactions, ms, 5..1000
    max_request_missedTxs_waitTime=100
    ; rpbft: wait before requesting a prepare, ms, 10..1000
    max_request_prepare_waitTime=100

[storage]
    ; storage db type, rocksdb / mysql / scalable
    type=rocksdb
    binary_log=false
    ; scroll_threshold=scroll_threshold_multiple*1000, only for scalable
    scroll_threshold_multiple=2
    cached_storage=true
    ; max cache memory, MB
    max_capacity=32
    max_forward_block=10
    max_retry=60
    topic=DB
    ; only for mysql
    db_ip=127.0.0.1
    db_port=3306
    db_username=
    db_passwd=
    db_name=
[tx_pool]
    limit=150000
    ; transaction pool memory size limit, MB
    memory_limit=512
    notify_worker_num=2
    ; seconds a transaction may wait in the pool
    txs_expiration_time=600
[sync]
    ; max memory used for block sync, MB, at least 32
    max_block_sync_memory_size=512
    idle_wait_ms=200
    ; send block status by tree, pbft only
    sync_block_by_tree=true
    ; send transactions by tree, pbft only
    send_txs_by_tree=true
    ; 1000..3000, only when sync_block_by_tree is true
    gossip_interval_ms=1000
    gossip_peers_number=3
    ; nodes transaction status is gossiped to
    txs_max_gossip_peers_num=5
[flow_control]
    ; requests per second of the group
    ;limit_req=1000
    ; outgoing bandwidth of the group, Mb
    ;outgoing_bandwidth_limit=2

[sdk_allowlist]
    ; empty: every SDK may connect; else only the listed public keys (128 hex)
    ;public_key.0=
`;
}
