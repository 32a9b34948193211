// What the CurlHTTP adapter needs from libcurl that Swift cannot call or name: typed wrappers of
// the variadic curl_easy_setopt / curl_easy_getinfo, the result of a finished multi transfer
// (a union in CURLMsg), and the macro constants Swift 6.0.3 does not import.
#pragma once

#include <stddef.h>
#include <curl/curl.h>

/// CURLOPT_WRITEFUNCTION / CURLOPT_HEADERFUNCTION.
typedef size_t (*gs_curl_data_fn)(char *data, size_t size, size_t count, void *context);
/// CURLOPT_XFERINFOFUNCTION.
typedef int (*gs_curl_progress_fn)(void *context, curl_off_t download_total, curl_off_t download_now,
                                   curl_off_t upload_total, curl_off_t upload_now);

CURLcode gs_curl_set_long(CURL *handle, CURLoption option, long value);
CURLcode gs_curl_set_off(CURL *handle, CURLoption option, curl_off_t value);
CURLcode gs_curl_set_string(CURL *handle, CURLoption option, const char *value);
/// Pointers: curl_slist lists, callback context, request bodies.
CURLcode gs_curl_set_pointer(CURL *handle, CURLoption option, void *value);
CURLcode gs_curl_set_data_function(CURL *handle, CURLoption option, gs_curl_data_fn function);
CURLcode gs_curl_set_progress_function(CURL *handle, gs_curl_progress_fn function);

CURLcode gs_curl_get_long(CURL *handle, CURLINFO info, long *value);
CURLcode gs_curl_get_off(CURL *handle, CURLINFO info, curl_off_t *value);
/// The string stays owned by the handle (valid until the next transfer or cleanup); NULL if none.
CURLcode gs_curl_get_string(CURL *handle, CURLINFO info, const char **value);

/// The next finished transfer of `multi`: 1 with its handle and result, 0 when none is left.
int gs_curl_multi_next_done(CURLM *multi, CURL **handle, CURLcode *result);

static inline long gs_curl_global_default(void) { return CURL_GLOBAL_DEFAULT; }
static inline size_t gs_curl_error_size(void) { return CURL_ERROR_SIZE; }
static inline int gs_curl_progress_continue(void) { return CURL_PROGRESSFUNC_CONTINUE; }
/// Numeric HTTP versions (CURLINFO_HTTP_VERSION).
static inline long gs_curl_http_version_1_0(void) { return CURL_HTTP_VERSION_1_0; }
static inline long gs_curl_http_version_1_1(void) { return CURL_HTTP_VERSION_1_1; }
static inline long gs_curl_http_version_2(void) { return CURL_HTTP_VERSION_2_0; }
static inline long gs_curl_http_version_2tls(void) { return CURL_HTTP_VERSION_2TLS; }
static inline long gs_curl_http_version_3(void) { return 30; /* CURL_HTTP_VERSION_3 */ }
/// libcurl's run-time version text ("8.14.1") and whether it was built with HTTP/2 (nghttp2).
const char *gs_curl_version_text(void);
int gs_curl_has_http2(void);
