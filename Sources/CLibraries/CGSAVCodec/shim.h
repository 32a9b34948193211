// libavcodec + libavutil (MediaCodec adapter), FFmpeg 5.1 (bookworm) and 7.1 (trixie).
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/error.h>
#include <libavutil/frame.h>
#include <errno.h>

/// AVERROR(EAGAIN) and AVERROR_EOF are macros Swift cannot import.
static inline int gs_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int gs_averror_eof(void) { return AVERROR_EOF; }
/// av_err2str is a macro around a compound literal.
static inline void gs_av_strerror(int code, char *buf, size_t size) { av_strerror(code, buf, size); }
/// AV_NOPTS_VALUE is a macro of a cast expression.
static inline int64_t gs_av_nopts_value(void) { return AV_NOPTS_VALUE; }
