// libcurl (OpenSSL flavour: Debian libcurl4-openssl-dev, 7.88 on bookworm, 8.x on trixie), as
// seen from Swift (CurlHTTP adapter). The variadic calls go through CGSCurl.
#include <curl/curl.h>
