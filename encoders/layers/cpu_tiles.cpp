// The chunked tanh attention's compiled tiles on CPU (float32 and float64), compiled once per machine
// (encoders/layers/cpu_tiles.py). The same sums as compiled_tiles.py's tile functions:
//
//   w_qk = 2^(-k2 r), r = 1 / (1 + a_q b_k)             (0 where the mask forbids)
//   forward:  sum_k w v_k,  sum_k w                                        [N, d, T]
//   backward: M = w g_q 4 a_q b_k r^2 (v_k - s_q)
//             sum_k M  [N, d, T],  sum_q M  [N, d, K],  sum_q w g_q  [N, d, K]
//
// Written as inductor writes the compiled tiles (ATen's Vectorized, exp2 from SLEEF, the keys in
// vectors), threads over the N·d rows (one sentence and feature: all its queries and keys), with
// the backward's three sums in one pass over the pairs. Any strides: the tiles are views of the
// whole sentence's tensors; the keys' tensors and the mask are copied only if their last
// dimension is not contiguous. float16 and bfloat16 (autocast) are summed in float32 and returned
// in their dtype. k2 is a number (a float of the operators' schema). The functions are the CPU
// kernels of compiled_tiles.py's operators sanbench::tanh_tile_sums and tanh_tile_grads,
// registered on their CPU key as the library loads (TORCH_LIBRARY_IMPL below).

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/cpu/vec/functional.h>
#include <ATen/cpu/vec/vec.h>
#include <torch/library.h>

#include <algorithm>
#include <tuple>
#include <vector>

namespace {

template <typename scalar_t>
using Vec = at::vec::Vectorized<scalar_t>;

at::Tensor keys_contiguous(const at::Tensor& t) {
  return t.stride(-1) == 1 ? t : t.contiguous();
}

void check(const at::Tensor& a, const at::Tensor& b, const at::Tensor& v,
           const at::Tensor& allowed) {
  TORCH_CHECK(a.dim() == 3 && b.dim() == 3 && v.dim() == 3 && allowed.dim() == 3,
              "tiles take a [N, d, T], b and v [N, d, K], allowed [N, T, K]");
  TORCH_CHECK(b.sizes() == v.sizes() && a.size(0) == b.size(0) && a.size(1) == b.size(1),
              "a, b and v disagree on N or d");
  TORCH_CHECK(allowed.size(0) == a.size(0) && allowed.size(1) == a.size(2) &&
                  allowed.size(2) == b.size(2),
              "allowed is not [N, T, K]");
  TORCH_CHECK(allowed.scalar_type() == at::kBool, "allowed must be bool");
  TORCH_CHECK(a.scalar_type() == b.scalar_type() && a.scalar_type() == v.scalar_type(),
              "a, b and v must share a dtype");
}

// One row of a tensor: element x at p[x * step].
template <typename P>
struct Strided {
  P* p;
  int64_t step;
  P& operator[](int64_t x) const { return p[x * step]; }
};

// The rows of a 3-d tensor ([N, d, T] or [N, d, K] by (sentence, feature), the [N, T, K] mask by
// (sentence, query)), its strides read once per call, outside the loops.
template <typename P>
struct Rows {
  P* data;
  int64_t s0, s1, s2;

  Rows(P* data_, const at::Tensor& t)
      : data(data_), s0(t.stride(0)), s1(t.stride(1)), s2(t.stride(2)) {}

  Strided<P> row(int64_t i, int64_t j) const { return {data + i * s0 + j * s1, s2}; }
};

template <typename scalar_t>
Rows<const scalar_t> rows_of(const at::Tensor& t) {
  return {t.const_data_ptr<scalar_t>(), t};
}

template <typename scalar_t>
Rows<scalar_t> rows_of(at::Tensor& t) {
  return {t.mutable_data_ptr<scalar_t>(), t};
}

// Keys [k, k + count) of a row, zero past the count (then also not allowed): whole vectors take
// the plain loads, the last part of a row the counted ones.
template <typename scalar_t>
inline Vec<scalar_t> load(const scalar_t* p, int64_t count) {
  return count == Vec<scalar_t>::size() ? Vec<scalar_t>::loadu(p) : Vec<scalar_t>::loadu(p, count);
}

template <typename scalar_t>
inline Vec<scalar_t> allowed_lanes(const bool* p, int64_t count) {
  using Mask = at::vec::VecMask<scalar_t, 1>;
  const Mask mask = count == Vec<scalar_t>::size() ? Mask::from(p)
                                                   : Mask::from(p, static_cast<int>(count));
  return mask.template cast<scalar_t, 1>();
}

// For keys [k, k + count) of a row: e = a_q b_k, r = 1 / (1 + e) and w = 2^(-k2 r) where allowed,
// 0 elsewhere (the backward reads e and r too).
template <typename scalar_t>
struct Weights {
  Vec<scalar_t> w, e, r;
};

template <typename scalar_t>
inline Weights<scalar_t> weights(const scalar_t* b, const bool* allowed, const Vec<scalar_t>& aq,
                                 const Vec<scalar_t>& minus_k2, int64_t k, int64_t count) {
  using V = Vec<scalar_t>;
  const V e = aq * load(b + k, count);
  const V r = (e + V(1)).reciprocal();
  const V w = V::blendv(V(0), (minus_k2 * r).exp2(), allowed_lanes<scalar_t>(allowed + k, count));
  return {w, e, r};
}

template <typename scalar_t>
inline scalar_t lane_sum(const Vec<scalar_t>& x) {
  using V = Vec<scalar_t>;
  return at::vec::vec_reduce_all<scalar_t, 1>([](V& u, V& w) { return u + w; }, x);
}

template <typename scalar_t>
void sums_kernel(const at::Tensor& a, const at::Tensor& b, const at::Tensor& v,
                 const at::Tensor& m, scalar_t k2, at::Tensor& numerator, at::Tensor& total) {
  using V = Vec<scalar_t>;
  const int64_t D = a.size(1), T = a.size(2), K = b.size(2), LANES = V::size();
  const V minus_k2(-k2);
  const auto A = rows_of<scalar_t>(a), B = rows_of<scalar_t>(b), Vk = rows_of<scalar_t>(v);
  const auto allowed_rows = rows_of<bool>(m);
  const auto sums_wv = rows_of<scalar_t>(numerator), sums_w = rows_of<scalar_t>(total);
  at::parallel_for(0, a.size(0) * D, 1, [&](int64_t begin, int64_t end) {
    for (int64_t nd = begin; nd < end; ++nd) {
      const int64_t n = nd / D, d = nd % D;
      const auto a_row = A.row(n, d), out_wv = sums_wv.row(n, d), out_w = sums_w.row(n, d);
      const scalar_t *b_row = B.row(n, d).p, *v_row = Vk.row(n, d).p;  // keys contiguous
      for (int64_t q = 0; q < T; ++q) {
        const V aq(a_row[q]);
        const bool* allowed = allowed_rows.row(n, q).p;
        V sum_wv(0), sum_w(0);
        for (int64_t k = 0; k < K; k += LANES) {
          const int64_t count = std::min(LANES, K - k);  // past it: v, b 0 and not allowed
          const V w = weights(b_row, allowed, aq, minus_k2, k, count).w;
          sum_wv = sum_wv + w * load(v_row + k, count);
          sum_w = sum_w + w;
        }
        out_wv[q] = lane_sum(sum_wv);
        out_w[q] = lane_sum(sum_w);
      }
    }
  });
}

template <typename scalar_t>
void grads_kernel(const at::Tensor& a, const at::Tensor& b, const at::Tensor& v,
                  const at::Tensor& m, scalar_t k2, const at::Tensor& g, const at::Tensor& s,
                  at::Tensor& grad_a, at::Tensor& grad_b, at::Tensor& grad_v) {
  using V = Vec<scalar_t>;
  const int64_t D = a.size(1), T = a.size(2), K = b.size(2), LANES = V::size();
  const V minus_k2(-k2), four(4);
  const auto A = rows_of<scalar_t>(a), B = rows_of<scalar_t>(b), Vk = rows_of<scalar_t>(v);
  const auto G = rows_of<scalar_t>(g), S = rows_of<scalar_t>(s);
  const auto allowed_rows = rows_of<bool>(m);
  const auto grads_a = rows_of<scalar_t>(grad_a), grads_b = rows_of<scalar_t>(grad_b);
  const auto grads_v = rows_of<scalar_t>(grad_v);
  at::parallel_for(0, a.size(0) * D, 1, [&](int64_t begin, int64_t end) {
    std::vector<scalar_t> sum_mb(K), sum_wg(K);  // Σ_q of one row's keys, contiguous
    for (int64_t nd = begin; nd < end; ++nd) {
      const int64_t n = nd / D, d = nd % D;
      const auto a_row = A.row(n, d), g_row = G.row(n, d), s_row = S.row(n, d);
      const auto out_a = grads_a.row(n, d), out_b = grads_b.row(n, d), out_v = grads_v.row(n, d);
      const scalar_t *b_row = B.row(n, d).p, *v_row = Vk.row(n, d).p;  // keys contiguous
      std::fill(sum_mb.begin(), sum_mb.end(), scalar_t(0));
      std::fill(sum_wg.begin(), sum_wg.end(), scalar_t(0));
      for (int64_t q = 0; q < T; ++q) {
        const V aq(a_row[q]), gq(g_row[q]), sq(s_row[q]);
        const bool* allowed = allowed_rows.row(n, q).p;
        V sum_ma(0);
        for (int64_t k = 0; k < K; k += LANES) {
          const int64_t count = std::min(LANES, K - k);
          const Weights<scalar_t> tile = weights(b_row, allowed, aq, minus_k2, k, count);
          const V pg = tile.w * gq;
          const V mm = pg * (four * tile.e * tile.r * tile.r) * (load(v_row + k, count) - sq);
          sum_ma = sum_ma + mm;
          (load(sum_mb.data() + k, count) + mm).store(sum_mb.data() + k, count);
          (load(sum_wg.data() + k, count) + pg).store(sum_wg.data() + k, count);
        }
        out_a[q] = lane_sum(sum_ma);
      }
      for (int64_t k = 0; k < K; ++k) {
        out_b[k] = sum_mb[k];
        out_v[k] = sum_wg[k];
      }
    }
  });
}

// The dtype the kernels sum in: float64 as it is, every other floating type (float16 and bfloat16
// under autocast) in float32.
at::ScalarType summed_in(const at::Tensor& a) {
  TORCH_CHECK(at::isFloatingType(a.scalar_type()), "tiles take floating-point a, b and v");
  return a.scalar_type() == at::kDouble ? at::kDouble : at::kFloat;
}

std::tuple<at::Tensor, at::Tensor> tile_sums(const at::Tensor& a_in, const at::Tensor& b_in,
                                             const at::Tensor& v_in, const at::Tensor& m_in,
                                             double k2) {
  check(a_in, b_in, v_in, m_in);
  const auto dtype = summed_in(a_in);
  const auto a = a_in.to(dtype), b = keys_contiguous(b_in.to(dtype));
  const auto v = keys_contiguous(v_in.to(dtype)), m = keys_contiguous(m_in);
  auto numerator = at::empty_like(a), total = at::empty_like(a);
  AT_DISPATCH_FLOATING_TYPES(dtype, "tanh_tile_sums", [&] {
    sums_kernel<scalar_t>(a, b, v, m, static_cast<scalar_t>(k2), numerator, total);
  });
  return {numerator.to(a_in.scalar_type()), total.to(a_in.scalar_type())};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> tile_grads(
    const at::Tensor& a_in, const at::Tensor& b_in, const at::Tensor& v_in, const at::Tensor& m_in,
    double k2, const at::Tensor& g_in, const at::Tensor& s_in) {
  check(a_in, b_in, v_in, m_in);
  TORCH_CHECK(g_in.sizes() == a_in.sizes() && s_in.sizes() == a_in.sizes(),
              "g and s must be [N, d, T]");
  TORCH_CHECK(g_in.scalar_type() == a_in.scalar_type() && s_in.scalar_type() == a_in.scalar_type(),
              "g and s must be of a's dtype");
  const auto dtype = summed_in(a_in);
  const auto a = a_in.to(dtype), b = keys_contiguous(b_in.to(dtype));
  const auto v = keys_contiguous(v_in.to(dtype)), m = keys_contiguous(m_in);
  const auto g = g_in.to(dtype), s = s_in.to(dtype);
  auto grad_a = at::empty_like(a), grad_b = at::empty_like(b), grad_v = at::empty_like(b);
  AT_DISPATCH_FLOATING_TYPES(dtype, "tanh_tile_grads", [&] {
    grads_kernel<scalar_t>(a, b, v, m, static_cast<scalar_t>(k2), g, s, grad_a, grad_b, grad_v);
  });
  const auto in = a_in.scalar_type();
  return {grad_a.to(in), grad_b.to(in), grad_v.to(in)};
}

}  // namespace

// The operators are defined in Python (compiled_tiles.py's custom_op, with their fake kernels and
// the compiled kernels of other devices); this library gives them their CPU kernels.
TORCH_LIBRARY_IMPL(sanbench, CPU, m) {
  m.impl("tanh_tile_sums", &tile_sums);
  m.impl("tanh_tile_grads", &tile_grads);
}
