// Shim over FFmpeg's C API: the headers VideoIO needs, and small inline helpers
// for what Swift cannot import (function-like macros, version-dependent calls).
#ifndef HANDPOSE_CFFMPEG_SHIM_H
#define HANDPOSE_CFFMPEG_SHIM_H

#include <errno.h>
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libswscale/swscale.h>
#include <libavutil/avutil.h>
#include <libavutil/display.h>
#include <libavutil/error.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/log.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static inline int cffmpeg_error_eagain(void) { return AVERROR(EAGAIN); }
static inline int cffmpeg_error_eof(void) { return AVERROR_EOF; }
static inline int cffmpeg_error_invalid_data(void) { return AVERROR_INVALIDDATA; }
static inline int cffmpeg_error_nomem(void) { return AVERROR(ENOMEM); }
static inline int64_t cffmpeg_nopts(void) { return AV_NOPTS_VALUE; }

/// FFmpeg's message for an error code, copied into `buffer`.
static inline void cffmpeg_strerror(int code, char *buffer, size_t size) {
    av_strerror(code, buffer, size);
}

/// The stream's display rotation in degrees counter-clockwise (0 when none).
// A stream's display matrix (9 values, 16.16 and 2.30 fixed point; libavutil/display.h) copied to `out`: 1, or 0
// when the stream has none.
static inline int cffmpeg_stream_display_matrix(const AVStream *stream, int32_t *out) {
    const int32_t *matrix = NULL;
#if LIBAVFORMAT_VERSION_MAJOR >= 61
    const AVPacketSideData *sd = av_packet_side_data_get(stream->codecpar->coded_side_data,
                                                         stream->codecpar->nb_coded_side_data,
                                                         AV_PKT_DATA_DISPLAYMATRIX);
    if (sd && sd->size >= 9 * sizeof(int32_t)) matrix = (const int32_t *)sd->data;
#else
    size_t size = 0;
    matrix = (const int32_t *)av_stream_get_side_data((AVStream *)stream, AV_PKT_DATA_DISPLAYMATRIX, &size);
    if (size < 9 * sizeof(int32_t)) matrix = NULL;
#endif
    if (!matrix) return 0;
    memcpy(out, matrix, 9 * sizeof(int32_t));
    return 1;
}

// The counter-clockwise angle of a display matrix in degrees (`av_display_rotation_get`; 0 where that is NaN,
// a matrix that is no rotation).
static inline double cffmpeg_display_rotation(const int32_t *matrix) {
    double angle = av_display_rotation_get(matrix);
    return angle != angle ? 0 : angle;
}

/// Stores a display matrix turning frames `degrees` clockwise for display on the stream (before the header is written).
static inline int cffmpeg_stream_set_rotation(AVStream *stream, double degrees) {
#if LIBAVFORMAT_VERSION_MAJOR >= 61
    AVPacketSideData *sd = av_packet_side_data_new(&stream->codecpar->coded_side_data,
                                                   &stream->codecpar->nb_coded_side_data,
                                                   AV_PKT_DATA_DISPLAYMATRIX, 9 * sizeof(int32_t), 0);
    if (!sd) return AVERROR(ENOMEM);
    av_display_rotation_set((int32_t *)sd->data, degrees);
    return 0;
#else
    uint8_t *data = av_stream_new_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, 9 * sizeof(int32_t));
    if (!data) return AVERROR(ENOMEM);
    av_display_rotation_set((int32_t *)data, degrees);
    return 0;
#endif
}

// Two signs of lost data that come below error level, each counted per key (the first 64 keys to have one; past
// those, `overflowed` is set and the reader takes any key as having had one):
// - the MPEG-TS demuxer resyncs past a lost or damaged stretch without an error; it shows only as a break in
//   the 4-bit continuity counter of a PID's packets, logged at debug level ("Continuity check failed for
//   pid %d ..."), keyed by PID;
// - a packet the demuxer read shorter than it declares (a file cut inside it: `av_get_packet` at the end of
//   the file) or marked damaged, which libavformat logs as a warning ("Packet corrupt (stream = %d, ..."),
//   keyed by stream index. A parser after the demuxer (MPEG video, H.264 in a transport stream) drops the
//   packet's flag, so the log is the only place it is seen.
enum { CFFMPEG_TALLY_KEYS = 64 };

typedef struct {
    int32_t key[CFFMPEG_TALLY_KEYS];
    int32_t count[CFFMPEG_TALLY_KEYS];
    int32_t keys;
    int32_t overflowed;
} cffmpeg_tally;

static inline void cffmpeg_tally_add(cffmpeg_tally *t, int key) {
    int k = 0;
    while (k < t->keys && t->key[k] != key) k++;
    if (k == t->keys) {
        if (k == CFFMPEG_TALLY_KEYS) { t->overflowed = 1; return; }
        t->key[k] = key;
        t->count[k] = 0;
        t->keys++;
    }
    if (t->count[k] < INT32_MAX) t->count[k]++;
}

// What a demuxer said was wrong with a file while handpose read it: the messages of error level or worse
// FFmpeg logged against a format context whose `opaque` points at one of these (VideoReader sets it), counted,
// the first kept. A demuxer that meets damaged data in the middle of a file (Matroska's "invalid as first byte
// of an EBML number") logs it and may then end the stream as if the file ended there.
typedef struct {
    uint32_t magic;
    int32_t errors;
    char first[200];
    cffmpeg_tally gaps;
    cffmpeg_tally corrupt;
    // The FLV demuxer's "Packet mismatch" (a tag's size and the size after it disagree): it resyncs on the next
    // tag it can find, and what lay between is lost.
    int32_t resyncs;
} cffmpeg_damage;

enum { CFFMPEG_DAMAGE_MAGIC = 0x68706467 };

// The first int argument of a message.
static inline int cffmpeg_first_int(va_list vl) {
    va_list copy;
    va_copy(copy, vl);
    int value = va_arg(copy, int);
    va_end(copy);
    return value;
}

// FFmpeg's log callback: nothing is printed (handpose reports errors itself); errors against a watched format
// context are noted in its `cffmpeg_damage`, with the two signs above. A demuxer logs from the thread reading
// its context, one at a time.
static inline void cffmpeg_log(void *avcl, int level, const char *fmt, va_list vl) {
    if (avcl == NULL || fmt == NULL) return;
    const AVClass *cls = *(const AVClass *const *)avcl;
    if (cls == NULL || cls != avformat_get_class()) return;
    cffmpeg_damage *d = (cffmpeg_damage *)((AVFormatContext *)avcl)->opaque;
    if (d == NULL || d->magic != CFFMPEG_DAMAGE_MAGIC) return;
    if (strncmp(fmt, "Continuity check failed for pid ", 32) == 0) cffmpeg_tally_add(&d->gaps, cffmpeg_first_int(vl));
    if (strncmp(fmt, "Packet corrupt (stream = ", 25) == 0) cffmpeg_tally_add(&d->corrupt, cffmpeg_first_int(vl));
    if (level > AV_LOG_ERROR) return;
    if (strncmp(fmt, "Packet mismatch ", 16) == 0 && d->resyncs < INT32_MAX) d->resyncs++;
    if (d->errors == 0) vsnprintf(d->first, sizeof d->first, fmt, vl);
    if (d->errors < INT32_MAX) d->errors++;
}

static inline void cffmpeg_quiet_logs(void) { av_log_set_callback(cffmpeg_log); }

static inline void cffmpeg_enable_threads(AVCodecContext *ctx) {
    ctx->thread_count = 0;
    ctx->thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE;
}

#endif
