// ECDSA public key recovery through the system's libsecp256k1 (Debian: libsecp256k1-dev), for
// src/crypto/secp256k1-backend.ts. The secp256k1 npm package bundles the library as of 2019;
// the system's (0.2 on Debian 12) recovers a key in about 45 µs instead of 62-75 µs here, and
// a replay recovers the sender of every transaction. Built by scripts/build-native.js where the
// library and Node's headers are installed; elsewhere the npm package does everything.
#include <node_api.h>
#include <pthread.h>
#include <secp256k1.h>
#include <secp256k1_recovery.h>
#include <stddef.h>

static secp256k1_context *context;
static pthread_once_t context_once = PTHREAD_ONCE_INIT;

static void create_context(void) {
  // recovery and verification only: no signing key ever reaches this module
  context = secp256k1_context_create(SECP256K1_CONTEXT_VERIFY);
}

// The bytes of a Uint8Array argument of exactly `length` bytes, else NULL (a TypeError is pending).
static const unsigned char *bytes_of(napi_env env, napi_value value, size_t length, const char *what) {
  bool is_typed = false;
  napi_typedarray_type type;
  size_t count = 0;
  void *data = NULL;
  if (napi_is_typedarray(env, value, &is_typed) != napi_ok || !is_typed ||
      napi_get_typedarray_info(env, value, &type, &count, &data, NULL, NULL) != napi_ok || type != napi_uint8_array || count != length) {
    napi_throw_type_error(env, NULL, what);
    return NULL;
  }
  return data;
}

// recover(digest: 32 bytes, signature: r ‖ s, 64 bytes, recid: 0-3): the 65-byte uncompressed
// public key, or null where the signature recovers to no key.
static napi_value recover(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  napi_value result;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) return NULL;
  if (argc != 3) {
    napi_throw_type_error(env, NULL, "recover(digest, signature, recid) takes three arguments");
    return NULL;
  }
  const unsigned char *digest = bytes_of(env, argv[0], 32, "the digest must be a Uint8Array of 32 bytes");
  if (!digest) return NULL;
  const unsigned char *signature = bytes_of(env, argv[1], 64, "the signature must be a Uint8Array of 64 bytes (r, s)");
  if (!signature) return NULL;
  uint32_t recid = 4;
  if (napi_get_value_uint32(env, argv[2], &recid) != napi_ok || recid > 3) {
    napi_throw_range_error(env, NULL, "the recovery id must be 0, 1, 2 or 3");
    return NULL;
  }
  pthread_once(&context_once, create_context);
  secp256k1_ecdsa_recoverable_signature parsed;
  secp256k1_pubkey key;
  if (!secp256k1_ecdsa_recoverable_signature_parse_compact(context, &parsed, signature, (int)recid) ||
      !secp256k1_ecdsa_recover(context, &key, &parsed, digest)) {
    napi_get_null(env, &result);
    return result;
  }
  void *out = NULL;
  napi_value buffer;
  size_t length = 65;
  if (napi_create_arraybuffer(env, 65, &out, &buffer) != napi_ok) return NULL;
  secp256k1_ec_pubkey_serialize(context, out, &length, &key, SECP256K1_EC_UNCOMPRESSED);
  if (napi_create_typedarray(env, napi_uint8_array, 65, buffer, 0, &result) != napi_ok) return NULL;
  return result;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  if (napi_create_function(env, "recover", NAPI_AUTO_LENGTH, recover, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "recover", fn) != napi_ok) return NULL;
  return exports;
}
