// See include/gs_curl.h.
#include "gs_curl.h"

CURLcode gs_curl_set_long(CURL *handle, CURLoption option, long value) { return curl_easy_setopt(handle, option, value); }
CURLcode gs_curl_set_off(CURL *handle, CURLoption option, curl_off_t value) { return curl_easy_setopt(handle, option, value); }
CURLcode gs_curl_set_string(CURL *handle, CURLoption option, const char *value) { return curl_easy_setopt(handle, option, value); }
CURLcode gs_curl_set_pointer(CURL *handle, CURLoption option, void *value) { return curl_easy_setopt(handle, option, value); }
CURLcode gs_curl_set_data_function(CURL *handle, CURLoption option, gs_curl_data_fn function) {
    return curl_easy_setopt(handle, option, function);
}
CURLcode gs_curl_set_progress_function(CURL *handle, gs_curl_progress_fn function) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, function);
}

CURLcode gs_curl_get_long(CURL *handle, CURLINFO info, long *value) { return curl_easy_getinfo(handle, info, value); }
CURLcode gs_curl_get_off(CURL *handle, CURLINFO info, curl_off_t *value) { return curl_easy_getinfo(handle, info, value); }
CURLcode gs_curl_get_string(CURL *handle, CURLINFO info, const char **value) {
    char *text = NULL;
    CURLcode code = curl_easy_getinfo(handle, info, &text);
    *value = text;
    return code;
}

int gs_curl_multi_next_done(CURLM *multi, CURL **handle, CURLcode *result) {
    int queued = 0;
    CURLMsg *message;
    while ((message = curl_multi_info_read(multi, &queued)) != NULL) {
        if (message->msg != CURLMSG_DONE) continue;
        *handle = message->easy_handle;
        *result = message->data.result;
        return 1;
    }
    return 0;
}

const char *gs_curl_version_text(void) { return curl_version_info(CURLVERSION_NOW)->version; }
int gs_curl_has_http2(void) { return (curl_version_info(CURLVERSION_NOW)->features & CURL_VERSION_HTTP2) != 0; }
