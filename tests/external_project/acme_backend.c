/* A vendor's backend as README.md's vendor section builds it: plain C99, SLICE at feature level
 * 1_0 and nothing else, with its own descriptor checks (the rules `dmlcert rules` lists, the
 * ranks and types `dmlcert support --level 1_0` prints). It depends on dmlcert's ABI header alone.
 */
#include <dmlcert_backend_abi.h>
#include <stdio.h>
#include <string.h>

#define MAX_RANK 5

/* SLICE at 1_0: ranks 4 and 5; these types, for input and output alike. */
static int slice_type(uint32_t t) {
  return t == DMLCERT_DATA_TYPE_FLOAT32 || t == DMLCERT_DATA_TYPE_FLOAT16 || t == DMLCERT_DATA_TYPE_INT32 ||
         t == DMLCERT_DATA_TYPE_INT16 || t == DMLCERT_DATA_TYPE_UINT32 || t == DMLCERT_DATA_TYPE_UINT16;
}

static uint64_t element_size(uint32_t t) {
  return t == DMLCERT_DATA_TYPE_FLOAT16 || t == DMLCERT_DATA_TYPE_INT16 || t == DMLCERT_DATA_TYPE_UINT16 ? 2
                                                                                                         : 4;
}

/* The tensor's strides, given or packed row-major. */
static void strides_of(const dmlcert_tensor_desc* t, uint64_t* strides) {
  uint64_t packed = 1;
  for (uint32_t i = t->dimension_count; i-- > 0;) {
    strides[i] = t->strides ? t->strides[i] : packed;
    packed *= t->sizes[i];
  }
}

static uint32_t reject(char* message, size_t capacity, const char* rule) {
  if (message && capacity) snprintf(message, capacity, "%s", rule);
  return DMLCERT_STATUS_INVALID_ARGUMENT;
}

/* The rules every tensor obeys (T.*); returns the broken rule's ID, or NULL. */
static const char* check_tensor(const dmlcert_tensor_desc* t) {
  uint64_t strides[MAX_RANK], last = 0;
  if (t->dimension_count < 4 || t->dimension_count > 5) return "T.RANK";
  if (!slice_type(t->data_type)) return "T.DTYPE";
  for (uint32_t i = 0; i < t->dimension_count; ++i)
    if (t->sizes[i] == 0) return "T.SIZE_ZERO";
  strides_of(t, strides);
  for (uint32_t i = 0; i < t->dimension_count; ++i) last += (uint64_t)(t->sizes[i] - 1) * strides[i];
  if (last + 1 > 0xFFFFFFFFull) return "T.ELEMENT_LIMIT";
  /* TotalTensorSizeInBytes: at least the last element's end, rounded up to 4, and a multiple of 4. */
  const uint64_t needed = ((last + 1) * element_size(t->data_type) + 3) / 4 * 4;
  if (t->total_tensor_size_in_bytes < needed || t->total_tensor_size_in_bytes % 4) return "T.TOTAL_BYTES";
  return NULL;
}

static const char* check_slice(const dmlcert_slice_operator_desc* d) {
  const char* broken = check_tensor(d->input_tensor);
  if (!broken) broken = check_tensor(d->output_tensor);
  if (broken) return broken;
  if (d->dimension_count != d->input_tensor->dimension_count ||
      d->dimension_count != d->output_tensor->dimension_count)
    return "SLICE.DIMCOUNT";
  if (d->input_tensor->data_type != d->output_tensor->data_type) return "SLICE.DTYPE_MATCH";
  for (uint32_t i = 0; i < d->dimension_count; ++i) {
    if (d->sizes[i] != d->output_tensor->sizes[i]) return "SLICE.SIZES_MATCH_OUTPUT";
    if ((uint64_t)d->offsets[i] + (uint64_t)d->strides[i] * (d->sizes[i] - 1) >= d->input_tensor->sizes[i])
      return "SLICE.IN_BOUNDS";
    /* A zero stride is left open by the specification (SLICE.STRIDE_ZERO): this backend refuses it. */
    if (d->strides[i] == 0) return "SLICE.STRIDE_ZERO";
  }
  return NULL;
}

static uint32_t max_feature_level(void* context) {
  (void)context;
  return DMLCERT_FEATURE_LEVEL_1_0;
}

static int implements(void* context, uint32_t op, uint32_t function, uint32_t type) {
  (void)context, (void)function;
  return op == DMLCERT_OPERATOR_SLICE && slice_type(type);
}

static uint32_t execute(void* context, const dmlcert_operator_desc* op, uint32_t feature_level,
                        const dmlcert_input_binding* inputs, uint32_t input_count,
                        const dmlcert_output_binding* outputs, uint32_t output_count, char* message,
                        size_t capacity) {
  (void)context, (void)feature_level;
  if (op->type != DMLCERT_OPERATOR_SLICE || input_count != 1 || output_count != 1)
    return DMLCERT_STATUS_UNSUPPORTED;
  const dmlcert_slice_operator_desc* d = (const dmlcert_slice_operator_desc*)op->desc;
  const char* broken = check_slice(d);
  if (broken) return reject(message, capacity, broken);

  const uint32_t rank = d->dimension_count;
  const uint64_t esize = element_size(d->input_tensor->data_type);
  uint64_t in_strides[MAX_RANK], out_strides[MAX_RANK];
  strides_of(d->input_tensor, in_strides);
  strides_of(d->output_tensor, out_strides);
  const unsigned char* in = (const unsigned char*)inputs[0].data;
  unsigned char* out = (unsigned char*)outputs[0].data;
  /* Every output coordinate c, row-major: Output[c] = Input[offsets + strides * c]. */
  uint32_t c[MAX_RANK] = {0};
  for (;;) {
    uint64_t from = 0, to = 0;
    for (uint32_t i = 0; i < rank; ++i) {
      from += ((uint64_t)d->offsets[i] + (uint64_t)d->strides[i] * c[i]) * in_strides[i];
      to += (uint64_t)c[i] * out_strides[i];
    }
    memcpy(out + to * esize, in + from * esize, esize);
    uint32_t i = rank;
    while (i > 0 && ++c[i - 1] == d->sizes[i - 1]) c[--i] = 0;
    if (i == 0) break;
  }
  return DMLCERT_STATUS_OK;
}

static const dmlcert_backend_v1 kBackend = {DMLCERT_ABI_VERSION,
                                            sizeof(dmlcert_backend_v1),
                                            "acme-slice 0.1",
                                            NULL,
                                            max_feature_level,
                                            implements,
                                            execute,
                                            NULL};

DMLCERT_PLUGIN_EXPORT const dmlcert_backend_v1* dmlcert_get_backend(uint32_t abi_version) {
  return abi_version == DMLCERT_ABI_VERSION ? &kBackend : NULL;
}
