// jitvec/array.hpp: an N-d array in host or device memory, owning or borrowed.
//
// Array is what ufuncs take and return: a data pointer, a dtype, a shape and strides counted
// in elements (NumPy counts bytes; PyTorch, like us, counts elements), any of them zero or
// negative, plus where the memory lives (host or a CUDA device). An Array either owns its
// memory (shared between copies of the Array, freed with the last one) or borrows memory the
// caller owns (`Array::wrap`, `from_vector`). Views (transpose, slice, broadcast_to, reshape)
// share memory and never copy. `to_device`/`to_host` copy, stream-ordered.
//
// An Array's shape and strides never change once it is made (views are new Arrays), so copies
// of an Array share them, with the element count and contiguity derived from them: copying an
// Array, or dropping one of several copies, costs an atomic count and no allocation, and a
// ufunc's new result shares the layout of a contiguous input of its shape. shape() and
// strides() return references that stay valid while this Array lives and is not assigned to,
// as they always did. (A moved-from Array is 0-d: shape (), size 1.)
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "jitvec/dtype.hpp"
#include "jitvec/errors.hpp"

struct CUstream_st;
struct DLManagedTensor;            // DLPack's structs: include jitvec/dlpack.hpp to use them
struct DLManagedTensorVersioned;

namespace jitvec {

using Shape = std::vector<std::int64_t>;
using Strides = std::vector<std::int64_t>;

enum class Memory : std::uint8_t { host, device };

/// A CUDA stream: a CUstream or cudaStream_t (both are `CUstream_st*`); default = the null
/// stream.
class Stream {
 public:
  constexpr Stream() = default;
  constexpr Stream(CUstream_st* handle) : handle_(handle) {}  // NOLINT: implicit on purpose
  CUstream_st* handle() const noexcept { return handle_; }

 private:
  CUstream_st* handle_ = nullptr;
};

/// "(2, 3, 4)": a shape as NumPy prints it.
std::string shape_to_string(const Shape& shape);

namespace detail {

/// The shape and strides of Arrays, with the element count and C-contiguity they give, shared
/// by reference count between the Arrays that have them. Never changed once made.
/// The library's own: use Array's members.
struct ArrayLayout {
  mutable std::atomic<std::intptr_t> refs{1};
  Shape shape;
  Strides strides;
  std::int64_t size = 1;
  bool contiguous = true;
  /// The strides are exactly those Array::empty gives the shape (contiguous_strides).
  bool c_strides = true;
};
/// Frees a layout whose last reference is gone.
void free_array_layout(const ArrayLayout* layout) noexcept;
/// The dimensions of a 0-d array: an Array without a layout (moved from) has them.
extern const Shape kNoDimensions;

/// A counted reference to an ArrayLayout; null stands for shape () and strides (), which is
/// what an Array moved from is left with (as its vectors used to be).
class LayoutRef {
 public:
  LayoutRef() noexcept = default;
  /// Takes over the one reference of a new layout.
  explicit LayoutRef(const ArrayLayout* fresh) noexcept : p_(fresh) {}
  LayoutRef(const LayoutRef& other) noexcept : p_(other.p_) { retain(); }
  LayoutRef(LayoutRef&& other) noexcept : p_(other.p_) { other.p_ = nullptr; }
  LayoutRef& operator=(const LayoutRef& other) noexcept {
    other.retain();
    release();
    p_ = other.p_;
    return *this;
  }
  LayoutRef& operator=(LayoutRef&& other) noexcept {
    if (this != &other) {
      release();
      p_ = other.p_;
      other.p_ = nullptr;
    }
    return *this;
  }
  ~LayoutRef() { release(); }

  const ArrayLayout* get() const noexcept { return p_; }
  const Shape& shape() const noexcept { return p_ ? p_->shape : kNoDimensions; }
  const Strides& strides() const noexcept { return p_ ? p_->strides : kNoDimensions; }

 private:
  void retain() const noexcept {
    if (p_) p_->refs.fetch_add(1, std::memory_order_relaxed);
  }
  void release() noexcept {
    // The last reference (a count of 1 seen with acquire) frees without a read-modify-write.
    if (p_ && (p_->refs.load(std::memory_order_acquire) == 1 ||
               p_->refs.fetch_sub(1, std::memory_order_acq_rel) == 1)) {
      free_array_layout(p_);
    }
  }
  const ArrayLayout* p_ = nullptr;
};

}  // namespace detail

class Array {
 public:
  /// An empty 1-d float32 array of size 0.
  Array();

  /// A borrowed view over memory the caller owns and keeps alive. `strides` default to
  /// C-contiguous. Throws ArgumentError for a null pointer with a non-empty shape, a pointer
  /// not aligned to the dtype, or strides of the wrong length.
  static Array wrap(void* data, DType dtype, Shape shape, Strides strides = {},
                    Memory memory = Memory::host, int device = 0);
  template <class T>
  static Array wrap(T* data, Shape shape, Strides strides = {}, Memory memory = Memory::host,
                    int device = 0) {
    return wrap(const_cast<std::remove_const_t<T>*>(data), dtype_of<std::remove_const_t<T>>(),
                std::move(shape), std::move(strides), memory, device);
  }

  /// A new C-contiguous array with uninitialized contents. Device memory comes from the
  /// stream-ordered allocator on `stream`.
  static Array empty(DType dtype, Shape shape, Memory memory = Memory::host, int device = 0,
                     Stream stream = {});

  DType dtype() const noexcept { return dtype_; }
  const Shape& shape() const noexcept { return layout_.shape(); }
  const Strides& strides() const noexcept { return layout_.strides(); }
  int ndim() const noexcept { return static_cast<int>(shape().size()); }
  std::int64_t size() const noexcept { return layout_.get() ? layout_.get()->size : 1; }
  Memory memory() const noexcept { return memory_; }
  int device() const noexcept { return device_; }
  bool is_device() const noexcept { return memory_ == Memory::device; }
  /// Address of element (0, ..., 0).
  void* data() const noexcept { return data_; }
  template <class T> T* data_as() const {
    check_dtype(dtype_of<std::remove_const_t<T>>());
    return static_cast<T*>(data_);
  }
  /// C-contiguous (row-major, no gaps); size-1 dimensions' strides do not matter.
  bool is_contiguous() const noexcept { return !layout_.get() || layout_.get()->contiguous; }
  /// Whether this Array owns (a share of) its memory.
  bool owns_memory() const noexcept { return static_cast<bool>(owner_); }

  /// Views: share memory, never copy.
  Array transpose() const;
  Array permute(const std::vector<int>& axes) const;
  /// Elements start, start+step, ... before stop along `axis`, by Python's slice rules: a
  /// negative bound counts from the end (-1 is the last element), and bounds are clamped. A
  /// negative step walks backwards: `slice(0, n - 1, -n - 1, -1)` (or any stop below -n)
  /// reverses an axis of length n, as Python's `a[::-1]`; `slice(0, n - 1, -1, -1)` is
  /// empty, as Python's `a[n-1:-1:-1]`.
  Array slice(int axis, std::int64_t start, std::int64_t stop, std::int64_t step = 1) const;
  /// NumPy's broadcast_to: size-1 or missing leading dimensions get stride 0.
  Array broadcast_to(const Shape& shape) const;
  /// Same elements, new shape; the array must be contiguous.
  Array reshape(Shape shape) const;

  /// A C-contiguous host copy (a synchronous copy for device arrays).
  Array to_host(Stream stream = {}) const;
  /// A C-contiguous copy on `device`.
  Array to_device(int device = 0, Stream stream = {}) const;
  /// The elements in C order, copied to the host.
  template <class T> std::vector<T> to_vector(Stream stream = {}) const {
    check_dtype(dtype_of<T>());
    Array host = to_host(stream);
    const T* p = static_cast<const T*>(host.data());
    return std::vector<T>(p, p + host.size());
  }

  /// DLPack, zero-copy (defined in src/interop; include jitvec/dlpack.hpp, which says how
  /// devices, dtypes, streams and ownership map). from_dlpack takes the tensor over on success
  /// (its deleter runs once, with the last Array sharing it) and nothing on error; with
  /// `writable`, a read-only versioned tensor is an error. to_dlpack's tensor holds a share of
  /// this array's memory until the consumer calls its deleter.
  static Array from_dlpack(DLManagedTensor* tensor);
  static Array from_dlpack(DLManagedTensorVersioned* tensor, bool writable = false);
  DLManagedTensor* to_dlpack() const;
  DLManagedTensorVersioned* to_dlpack_versioned() const;

  /// "float32 array of shape (2, 3), strides (3, 1), on cuda:0" for messages.
  std::string describe() const;

 private:
  void check_dtype(DType wanted) const;
  // An Array with no layout yet (shape ()), for members that set every field.
  struct Unset {};
  explicit Array(Unset) noexcept {}

  std::shared_ptr<void> owner_;
  void* data_ = nullptr;
  detail::LayoutRef layout_;  // shared with copies; never changed in place
  DType dtype_ = DType::float32;
  Memory memory_ = Memory::host;
  int device_ = 0;

  friend class ArrayAccess;
};

/// A borrowed 1-d host view of a vector's elements (no copy).
template <class T> Array from_vector(std::vector<T>& v) {
  return Array::wrap(v.data(), Shape{static_cast<std::int64_t>(v.size())});
}
template <class T> Array from_vector(const std::vector<T>& v) {
  return Array::wrap(const_cast<T*>(v.data()), Shape{static_cast<std::int64_t>(v.size())});
}
/// A new device array holding a copy of `v` (shape (n,) unless `shape` says otherwise).
template <class T>
Array to_device(const std::vector<T>& v, Shape shape = {}, int device = 0, Stream stream = {}) {
  Array host = from_vector(v);
  if (!shape.empty()) host = host.reshape(std::move(shape));
  return host.to_device(device, stream);
}

}  // namespace jitvec
