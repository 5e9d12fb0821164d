/* dmlcert backend plugin ABI.
 *
 * A vendor builds its operator implementations into a shared library that includes this header
 * and exports ONE symbol, dmlcert_get_backend(). `dmlcert certify --backend plugin:/path/lib.so`
 * loads the library in a child process, asks it for its function table and runs cases through
 * it. Only C99 types cross this boundary, so the plugin may be written in any language and built
 * with any compiler.
 *
 * The descriptors mirror DirectML's DML_*_OPERATOR_DESC structs: arrays are a pointer plus a
 * count, tensors carry their data type, sizes, optional strides and TotalTensorSizeInBytes.
 * Enumeration values equal DirectML's where DirectML has them (data types, feature levels, reduce
 * functions), so a DirectML-based backend can cast them straight through.
 *
 * Versioning: a new version only adds: an operator (a DMLCERT_OPERATOR_* value and its desc struct),
 * or fields at the end of a struct (struct_size tells the harness how much of the table the plugin
 * filled in). The harness calls dmlcert_get_backend() with the DMLCERT_ABI_VERSION it was built
 * with and, while that returns NULL, with each older version down to 1, so a plugin built from an
 * older header (which may answer only its own version) keeps loading in a newer harness. A plugin
 * answers with a table whose abi_version is at most the version asked for, normally the
 * DMLCERT_ABI_VERSION of the header it was built with (answering every newer version spares the
 * harness the retries), or NULL when it cannot serve that version. The harness never asks a
 * plugin about an operator its abi_version does not have: those cells are outside its scope.
 *
 * Versions: 1 SLICE, SLICE1, SCATTER_ND, REDUCE, GATHER_ELEMENTS.
 *           2 implements_index_type (a field at the end of the function table).
 *
 * Threading: the harness calls one function at a time. Memory: every pointer passed to a plugin
 * is valid only during the call; the plugin must not keep it.
 *
 * What to reject: a descriptor that breaks a rule is rejected with DMLCERT_STATUS_INVALID_ARGUMENT
 * and no output written. `dmlcert rules` lists every rule; `dmlcert support --level L` prints, per
 * operator (and REDUCE function) and tensor role, the ranks and data types level L allows (rules
 * T.RANK and T.DTYPE), as text, JSON or Markdown.
 */
#ifndef DMLCERT_BACKEND_ABI_H_
#define DMLCERT_BACKEND_ABI_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The ABI version this header describes. */
#define DMLCERT_ABI_VERSION 2u

/* The name of the one exported entry symbol (for dlsym). */
#define DMLCERT_ENTRY_SYMBOL "dmlcert_get_backend"

/* Marks the entry symbol as exported even when the plugin builds with -fvisibility=hidden. */
#if defined(_WIN32)
#define DMLCERT_PLUGIN_EXPORT __declspec(dllexport)
#else
#define DMLCERT_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

/* Result of a call (dmlcert_status values are returned as uint32_t). */
enum {
  DMLCERT_STATUS_OK = 0,               /* executed; the output buffer holds the result */
  DMLCERT_STATUS_INVALID_ARGUMENT = 1, /* the descriptor breaks a rule; no output byte written */
  DMLCERT_STATUS_UNSUPPORTED = 2,      /* valid, but not implemented by this backend */
  DMLCERT_STATUS_ERROR = 3             /* anything else (out of memory, device lost, ...) */
};

/* Tensor data types; the values are DirectML's DML_TENSOR_DATA_TYPE. */
enum {
  DMLCERT_DATA_TYPE_UNKNOWN = 0,
  DMLCERT_DATA_TYPE_FLOAT32 = 1,
  DMLCERT_DATA_TYPE_FLOAT16 = 2, /* IEEE binary16 */
  DMLCERT_DATA_TYPE_UINT32 = 3,
  DMLCERT_DATA_TYPE_UINT16 = 4,
  DMLCERT_DATA_TYPE_UINT8 = 5,
  DMLCERT_DATA_TYPE_INT32 = 6,
  DMLCERT_DATA_TYPE_INT16 = 7,
  DMLCERT_DATA_TYPE_INT8 = 8,
  DMLCERT_DATA_TYPE_FLOAT64 = 9,
  DMLCERT_DATA_TYPE_UINT64 = 10,
  DMLCERT_DATA_TYPE_INT64 = 11
};

/* Feature levels; the values are DirectML's DML_FEATURE_LEVEL. */
enum {
  DMLCERT_FEATURE_LEVEL_1_0 = 0x1000,
  DMLCERT_FEATURE_LEVEL_2_0 = 0x2000,
  DMLCERT_FEATURE_LEVEL_2_1 = 0x2100,
  DMLCERT_FEATURE_LEVEL_3_0 = 0x3000,
  DMLCERT_FEATURE_LEVEL_3_1 = 0x3100,
  DMLCERT_FEATURE_LEVEL_4_0 = 0x4000,
  DMLCERT_FEATURE_LEVEL_4_1 = 0x4100,
  DMLCERT_FEATURE_LEVEL_5_0 = 0x5000,
  DMLCERT_FEATURE_LEVEL_5_1 = 0x5100,
  DMLCERT_FEATURE_LEVEL_5_2 = 0x5200,
  DMLCERT_FEATURE_LEVEL_6_0 = 0x6000,
  DMLCERT_FEATURE_LEVEL_6_1 = 0x6100,
  DMLCERT_FEATURE_LEVEL_6_2 = 0x6200,
  DMLCERT_FEATURE_LEVEL_6_3 = 0x6300,
  DMLCERT_FEATURE_LEVEL_6_4 = 0x6400
};

/* The operators (dmlcert_operator_desc.type). */
enum {
  DMLCERT_OPERATOR_SLICE = 1,          /* desc: dmlcert_slice_operator_desc */
  DMLCERT_OPERATOR_SLICE1 = 2,         /* desc: dmlcert_slice1_operator_desc */
  DMLCERT_OPERATOR_SCATTER_ND = 3,     /* desc: dmlcert_scatter_nd_operator_desc */
  DMLCERT_OPERATOR_REDUCE = 4,         /* desc: dmlcert_reduce_operator_desc */
  DMLCERT_OPERATOR_GATHER_ELEMENTS = 5 /* desc: dmlcert_gather_elements_operator_desc */
};

/* REDUCE functions; the values are DirectML's DML_REDUCE_FUNCTION. A descriptor may carry any
 * other value: that is an invalid descriptor (rule OP.FUNCTION) which must be rejected. */
enum {
  DMLCERT_REDUCE_FUNCTION_ARGMAX = 0,
  DMLCERT_REDUCE_FUNCTION_ARGMIN = 1,
  DMLCERT_REDUCE_FUNCTION_AVERAGE = 2,
  DMLCERT_REDUCE_FUNCTION_L1 = 3,
  DMLCERT_REDUCE_FUNCTION_L2 = 4,
  DMLCERT_REDUCE_FUNCTION_LOG_SUM = 5,
  DMLCERT_REDUCE_FUNCTION_LOG_SUM_EXP = 6,
  DMLCERT_REDUCE_FUNCTION_MAX = 7,
  DMLCERT_REDUCE_FUNCTION_MIN = 8,
  DMLCERT_REDUCE_FUNCTION_MULTIPLY = 9,
  DMLCERT_REDUCE_FUNCTION_SUM = 10,
  DMLCERT_REDUCE_FUNCTION_SUM_SQUARE = 11
};

/* Passed as `reduce_function` to implements() for operators other than REDUCE. */
#define DMLCERT_NO_FUNCTION 0xFFFFFFFFu

/* A tensor descriptor (DML_BUFFER_TENSOR_DESC). */
typedef struct dmlcert_tensor_desc {
  uint32_t data_type;                  /* a DMLCERT_DATA_TYPE_* value */
  uint32_t dimension_count;            /* number of entries in sizes (and strides) */
  const uint32_t* sizes;               /* dimension_count sizes, outermost first */
  const uint32_t* strides;             /* dimension_count strides in elements, or NULL for packed row-major */
  uint64_t total_tensor_size_in_bytes; /* TotalTensorSizeInBytes: the bytes the tensor may use */
} dmlcert_tensor_desc;

/* DML_SLICE_OPERATOR_DESC: Output[c] = Input[offsets + strides * c]. */
typedef struct dmlcert_slice_operator_desc {
  const dmlcert_tensor_desc* input_tensor;
  const dmlcert_tensor_desc* output_tensor;
  uint32_t dimension_count; /* number of entries in offsets, sizes and strides */
  const uint32_t* offsets;
  const uint32_t* sizes;
  const uint32_t* strides;
} dmlcert_slice_operator_desc;

/* DML_SLICE1_OPERATOR_DESC: a window of the input, walked with signed strides. */
typedef struct dmlcert_slice1_operator_desc {
  const dmlcert_tensor_desc* input_tensor;
  const dmlcert_tensor_desc* output_tensor;
  uint32_t dimension_count; /* number of entries in each window array */
  const uint32_t* input_window_offsets;
  const uint32_t* input_window_sizes;
  const int32_t* input_window_strides; /* negative strides walk from the window's end */
} dmlcert_slice1_operator_desc;

/* DML_SCATTER_ND_OPERATOR_DESC: output = input, then output[indices[...]] = updates[...]. */
typedef struct dmlcert_scatter_nd_operator_desc {
  const dmlcert_tensor_desc* input_tensor;
  const dmlcert_tensor_desc* indices_tensor; /* an integer type: INT64, INT32, UINT64 or UINT32 */
  const dmlcert_tensor_desc* updates_tensor;
  const dmlcert_tensor_desc* output_tensor;
  uint32_t input_dimension_count;   /* meaningful trailing dimensions of the input */
  uint32_t indices_dimension_count; /* meaningful trailing dimensions of the indices */
} dmlcert_scatter_nd_operator_desc;

/* DML_REDUCE_OPERATOR_DESC. */
typedef struct dmlcert_reduce_operator_desc {
  uint32_t function; /* a DMLCERT_REDUCE_FUNCTION_* value (or an invalid one, see above) */
  const dmlcert_tensor_desc* input_tensor;
  const dmlcert_tensor_desc* output_tensor; /* ARGMAX/ARGMIN: an integer type */
  uint32_t axis_count;                      /* number of entries in axes */
  const uint32_t* axes;                     /* the reduced axes */
} dmlcert_reduce_operator_desc;

/* DML_GATHER_ELEMENTS_OPERATOR_DESC: output[c] = input[c with c[axis] = indices[c]]. */
typedef struct dmlcert_gather_elements_operator_desc {
  const dmlcert_tensor_desc* input_tensor;
  const dmlcert_tensor_desc* indices_tensor; /* an integer type: INT64, INT32, UINT64 or UINT32 */
  const dmlcert_tensor_desc* output_tensor;
  uint32_t axis;
} dmlcert_gather_elements_operator_desc;

/* DML_OPERATOR_DESC: the operator tag plus a pointer to that operator's desc struct. */
typedef struct dmlcert_operator_desc {
  uint32_t type;    /* a DMLCERT_OPERATOR_* value */
  const void* desc; /* points to the dmlcert_*_operator_desc that `type` names */
} dmlcert_operator_desc;

/* An input binding: the memory the backend may read, [data, data + size_in_bytes). The pages
 * are read-only: a write to an input is a certification failure (reported as OOB). */
typedef struct dmlcert_input_binding {
  const void* data;
  uint64_t size_in_bytes; /* normally the tensor's TotalTensorSizeInBytes */
} dmlcert_input_binding;

/* An output binding: the memory the backend may write, [data, data + size_in_bytes). The byte
 * after it starts a no-access page; canary bytes precede it. */
typedef struct dmlcert_output_binding {
  void* data;
  uint64_t size_in_bytes; /* normally the tensor's TotalTensorSizeInBytes */
} dmlcert_output_binding;

/* The function table a plugin returns. Every function gets back `context`. */
typedef struct dmlcert_backend_v1 {
  uint32_t abi_version; /* the DMLCERT_ABI_VERSION the plugin implements (see "Versioning") */
  uint32_t struct_size; /* sizeof(dmlcert_backend_v1) as the plugin was compiled */
  const char* name;     /* a short, human-readable name with version, e.g. "acme-npu 2.3" */
  void* context;        /* the plugin's own state; may be NULL */

  /* Capability query: the highest DMLCERT_FEATURE_LEVEL_* value the backend claims. */
  uint32_t (*max_feature_level)(void* context);

  /* Capability query: nonzero when the backend implements the cell (operator_type,
   * reduce_function, data_type). data_type is the type of the operator's main input tensor;
   * reduce_function is DMLCERT_NO_FUNCTION for operators other than REDUCE. What it claims is the
   * scope of the certification: valid cases of cells it does not claim are not run, and invalid or
   * unspecified cases of those cells may be refused with any status but OK (UNSUPPORTED, say).
   * Every verdict names the scope ("CERTIFIED at 5_0 for SLICE (all 11 types)"). */
  int (*implements)(void* context, uint32_t operator_type, uint32_t reduce_function, uint32_t data_type);

  /* Validates and executes one operator at `feature_level` (a DMLCERT_FEATURE_LEVEL_* value).
   * inputs: one binding per input tensor, in the order of the desc struct's tensor members
   *   (SLICE, SLICE1, REDUCE: input; SCATTER_ND: input, indices, updates; GATHER_ELEMENTS:
   *   input, indices). input_count says how many.
   * outputs: one binding per output tensor (every operator here has one). output_count says how
   *   many.
   * message, message_capacity: an optional caller-provided buffer (message may be NULL, then
   *   capacity is 0). On any status the plugin may write a NUL-terminated, human-readable
   *   explanation of at most message_capacity bytes including the NUL.
   * Returns a DMLCERT_STATUS_* value. On INVALID_ARGUMENT, UNSUPPORTED and ERROR the plugin must
   * not have written any output byte. */
  uint32_t (*execute)(void* context, const dmlcert_operator_desc* op, uint32_t feature_level,
                      const dmlcert_input_binding* inputs, uint32_t input_count,
                      const dmlcert_output_binding* outputs, uint32_t output_count, char* message,
                      size_t message_capacity);

  /* Releases `context`. Called once, before the library is unloaded. May be NULL. */
  void (*destroy)(void* context);

  /* Version 2. Capability query: nonzero when the backend takes index tensors of index_type (a
   * DMLCERT_DATA_TYPE_* value) for operator_type: the indices of SCATTER_ND and
   * GATHER_ELEMENTS, the output of REDUCE ARGMIN and ARGMAX. A backend that takes INT32 indices
   * only (as many NPUs do) says so here, and the other index types lie outside the scope of its
   * certification, as unclaimed cells do. NULL, or a table of version 1: every index type that
   * the support tables allow is claimed. */
  int (*implements_index_type)(void* context, uint32_t operator_type, uint32_t index_type);
} dmlcert_backend_v1;

/* The size of a version-1 table: a plugin built from the version-1 header reports it as
 * struct_size, and the harness reads no field past it. */
#define DMLCERT_BACKEND_V1_SIZE (offsetof(dmlcert_backend_v1, destroy) + sizeof(void (*)(void*)))

/* The one exported entry symbol. abi_version is the DMLCERT_ABI_VERSION of the harness. Returns
 * the plugin's table (owned by the plugin, valid until destroy), or NULL when the plugin cannot
 * serve that version. */
typedef const dmlcert_backend_v1* (*dmlcert_get_backend_fn)(uint32_t abi_version);
DMLCERT_PLUGIN_EXPORT const dmlcert_backend_v1* dmlcert_get_backend(uint32_t abi_version);

#ifdef __cplusplus
}
#endif

#endif /* DMLCERT_BACKEND_ABI_H_ */
