// libavcodec + libavutil (MediaCodec adapter), FFmpeg 5.1 (bookworm) and 7.1 (trixie).
// Everything here is either a macro Swift cannot import or a field whose spelling differs
// between the two FFmpeg versions; the adapter calls these instead of touching the fields.
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/error.h>
#include <libavutil/frame.h>
#include <libavutil/pixdesc.h>
#include <libavutil/imgutils.h>
#include <errno.h>

/// AVERROR(e) and the FFERRTAG codes are macros Swift cannot import.
static inline int gs_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int gs_averror_eof(void) { return AVERROR_EOF; }
static inline int gs_averror_enomem(void) { return AVERROR(ENOMEM); }
static inline int gs_averror_einval(void) { return AVERROR(EINVAL); }
static inline int gs_averror_enosys(void) { return AVERROR(ENOSYS); }
static inline int gs_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
static inline int gs_averror_decoder_not_found(void) { return AVERROR_DECODER_NOT_FOUND; }
static inline int gs_averror_encoder_not_found(void) { return AVERROR_ENCODER_NOT_FOUND; }
/// av_err2str is a macro around a compound literal.
static inline void gs_av_strerror(int code, char *buf, size_t size) { av_strerror(code, buf, size); }
/// AV_NOPTS_VALUE is a macro of a cast expression.
static inline int64_t gs_av_nopts_value(void) { return AV_NOPTS_VALUE; }
/// Padding every packet buffer handed to a decoder must carry (zeroed).
static inline int gs_av_input_buffer_padding_size(void) { return AV_INPUT_BUFFER_PADDING_SIZE; }

/// AVFrame.key_frame is deprecated since FFmpeg 6.1 (libavutil 58.29) in favour of
/// AV_FRAME_FLAG_KEY, which 5.1 does not have.
static inline int gs_frame_is_key(const AVFrame *frame) {
#if defined(AV_FRAME_FLAG_KEY)
    return (frame->flags & AV_FRAME_FLAG_KEY) != 0;
#else
    return frame->key_frame;
#endif
}

/// Marks a frame handed to an encoder as a keyframe (both spellings, see gs_frame_is_key).
static inline void gs_frame_set_key(AVFrame *frame) {
#if defined(AV_FRAME_FLAG_KEY)
    frame->flags |= AV_FRAME_FLAG_KEY;
#else
    frame->key_frame = 1;
#endif
}

/// AVFrame.data/linesize are C arrays (tuples in Swift); index them here.
static inline uint8_t *gs_frame_plane(const AVFrame *frame, int plane) { return frame->data[plane]; }
static inline int gs_frame_linesize(const AVFrame *frame, int plane) { return frame->linesize[plane]; }

/// Fixed-quantiser encoding (AV_CODEC_FLAG_QSCALE with lambda = qscale * FF_QP2LAMBDA).
static inline void gs_codec_set_qscale(AVCodecContext *ctx, AVFrame *frame, int qscale) {
    ctx->flags |= AV_CODEC_FLAG_QSCALE;
    ctx->global_quality = qscale * FF_QP2LAMBDA;
    frame->quality = qscale * FF_QP2LAMBDA;
}
