// The chunked tanh attention's fused tiles on CPU (float32 and float64), compiled once per machine
// (encoders/layers/cpu_tiles.py). The same sums as fused_tiles.py's tile functions:
//
//   w_qk = 2^(-k2 r), r = 1 / (1 + a_q b_k)             (0 where the mask forbids)
//   forward:  sum_k w v_k,  sum_k w                                        [N, d, T]
//   backward: M = w g_q 4 a_q b_k r^2 (v_k - s_q)
//             sum_k M  [N, d, T],  sum_q M  [N, d, K],  sum_q w g_q  [N, d, K]
//
// Written as inductor writes the compiled tiles (ATen's Vectorized, exp2 from SLEEF, the
// keys in vectors, threads over sentences x features x queries), with the backward's three sums
// in one pass over the pairs. Any strides: the tiles are views of the whole sentence's tensors;
// the keys' tensors and the mask are copied only if their last dimension is not contiguous.

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

// Where one (sentence, feature) reads: its queries (a_q at a[q * a_stride]), its keys' b and v
// and its sentence's mask (row q at allowed[q * allowed_stride]), all from key 0.
template <typename scalar_t>
struct Row {
  const scalar_t *a, *b, *v;
  const bool* allowed;
  int64_t n, d, a_stride, allowed_stride;

  Row(const at::Tensor& a_, const at::Tensor& b_, const at::Tensor& v_, const at::Tensor& m,
      int64_t nd)
      : n(nd / a_.size(1)), d(nd % a_.size(1)), a_stride(a_.stride(2)), allowed_stride(m.stride(1)) {
    a = a_.const_data_ptr<scalar_t>() + n * a_.stride(0) + d * a_.stride(1);
    b = b_.const_data_ptr<scalar_t>() + n * b_.stride(0) + d * b_.stride(1);
    v = v_.const_data_ptr<scalar_t>() + n * v_.stride(0) + d * v_.stride(1);
    allowed = m.const_data_ptr<bool>() + n * m.stride(0);
  }

  // element q of this row of a [N, d, T] or [N, d, K] tensor
  template <typename P>
  P* at(P* base, const at::Tensor& t, int64_t q) const {
    return base + n * t.stride(0) + d * t.stride(1) + q * t.stride(2);
  }
};

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
inline Weights<scalar_t> weights(const Row<scalar_t>& row, const bool* allowed,
                                 const Vec<scalar_t>& aq, const Vec<scalar_t>& minus_k2, int64_t k,
                                 int64_t count) {
  using V = Vec<scalar_t>;
  const V e = aq * load(row.b + k, count);
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
  const int64_t T = a.size(2), K = b.size(2), LANES = V::size();
  const V minus_k2(-k2);
  scalar_t* numerator_p = numerator.mutable_data_ptr<scalar_t>();
  scalar_t* total_p = total.mutable_data_ptr<scalar_t>();
  at::parallel_for(0, a.size(0) * a.size(1), 1, [&](int64_t begin, int64_t end) {
    for (int64_t nd = begin; nd < end; ++nd) {
      const Row<scalar_t> row(a, b, v, m, nd);
      for (int64_t q = 0; q < T; ++q) {
        const V aq(row.a[q * row.a_stride]);
        const bool* allowed = row.allowed + q * row.allowed_stride;
        V sum_wv(0), sum_w(0);
        for (int64_t k = 0; k < K; k += LANES) {
          const int64_t count = std::min(LANES, K - k);  // past it: v, b 0 and not allowed
          const V w = weights(row, allowed, aq, minus_k2, k, count).w;
          sum_wv = sum_wv + w * load(row.v + k, count);
          sum_w = sum_w + w;
        }
        *row.at(numerator_p, numerator, q) = lane_sum(sum_wv);
        *row.at(total_p, total, q) = lane_sum(sum_w);
      }
    }
  });
}

template <typename scalar_t>
void grads_kernel(const at::Tensor& a, const at::Tensor& b, const at::Tensor& v,
                  const at::Tensor& m, scalar_t k2, const at::Tensor& g, const at::Tensor& s,
                  at::Tensor& grad_a, at::Tensor& grad_b, at::Tensor& grad_v) {
  using V = Vec<scalar_t>;
  const int64_t T = a.size(2), K = b.size(2), LANES = V::size();
  const V minus_k2(-k2), four(4);
  const scalar_t *g_p = g.const_data_ptr<scalar_t>(), *s_p = s.const_data_ptr<scalar_t>();
  scalar_t* grad_a_p = grad_a.mutable_data_ptr<scalar_t>();
  scalar_t* grad_b_p = grad_b.mutable_data_ptr<scalar_t>();
  scalar_t* grad_v_p = grad_v.mutable_data_ptr<scalar_t>();
  at::parallel_for(0, a.size(0) * a.size(1), 1, [&](int64_t begin, int64_t end) {
    std::vector<scalar_t> sum_mb(K), sum_wg(K);  // Σ_q of one row's keys, contiguous
    for (int64_t nd = begin; nd < end; ++nd) {
      const Row<scalar_t> row(a, b, v, m, nd);
      std::fill(sum_mb.begin(), sum_mb.end(), scalar_t(0));
      std::fill(sum_wg.begin(), sum_wg.end(), scalar_t(0));
      for (int64_t q = 0; q < T; ++q) {
        const V aq(row.a[q * row.a_stride]), gq(*row.at(g_p, g, q)), sq(*row.at(s_p, s, q));
        const bool* allowed = row.allowed + q * row.allowed_stride;
        V sum_ma(0);
        for (int64_t k = 0; k < K; k += LANES) {
          const int64_t count = std::min(LANES, K - k);
          const Weights<scalar_t> tile = weights(row, allowed, aq, minus_k2, k, count);
          const V pg = tile.w * gq;
          const V mm = pg * (four * tile.e * tile.r * tile.r) * (load(row.v + k, count) - sq);
          sum_ma = sum_ma + mm;
          (load(sum_mb.data() + k, count) + mm).store(sum_mb.data() + k, count);
          (load(sum_wg.data() + k, count) + pg).store(sum_wg.data() + k, count);
        }
        *row.at(grad_a_p, grad_a, q) = lane_sum(sum_ma);
      }
      for (int64_t k = 0; k < K; ++k) {
        *row.at(grad_b_p, grad_b, k) = sum_mb[k];
        *row.at(grad_v_p, grad_v, k) = sum_wg[k];
      }
    }
  });
}

std::tuple<at::Tensor, at::Tensor> tile_sums(const at::Tensor& a, const at::Tensor& b_in,
                                             const at::Tensor& v_in, const at::Tensor& m_in,
                                             const at::Tensor& k2) {
  check(a, b_in, v_in, m_in);
  const auto b = keys_contiguous(b_in), v = keys_contiguous(v_in), m = keys_contiguous(m_in);
  auto numerator = at::empty_like(a), total = at::empty_like(a);
  AT_DISPATCH_FLOATING_TYPES(a.scalar_type(), "tile_sums", [&] {
    sums_kernel<scalar_t>(a, b, v, m, k2.item<scalar_t>(), numerator, total);
  });
  return {numerator, total};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> tile_grads(
    const at::Tensor& a, const at::Tensor& b_in, const at::Tensor& v_in, const at::Tensor& m_in,
    const at::Tensor& k2, const at::Tensor& g, const at::Tensor& s) {
  check(a, b_in, v_in, m_in);
  TORCH_CHECK(g.sizes() == a.sizes() && s.sizes() == a.sizes(), "g and s must be [N, d, T]");
  TORCH_CHECK(g.scalar_type() == a.scalar_type() && s.scalar_type() == a.scalar_type(),
              "g and s must be of a's dtype");
  const auto b = keys_contiguous(b_in), v = keys_contiguous(v_in), m = keys_contiguous(m_in);
  auto grad_a = at::empty_like(a), grad_b = at::empty_like(b_in), grad_v = at::empty_like(b_in);
  AT_DISPATCH_FLOATING_TYPES(a.scalar_type(), "tile_grads", [&] {
    grads_kernel<scalar_t>(a, b, v, m, k2.item<scalar_t>(), g, s, grad_a, grad_b, grad_v);
  });
  return {grad_a, grad_b, grad_v};
}

}  // namespace

TORCH_LIBRARY(sanbench_cpu, m) {
  m.def("tile_sums(Tensor a, Tensor b, Tensor v, Tensor allowed, Tensor k2) -> (Tensor, Tensor)");
  m.def(
      "tile_grads(Tensor a, Tensor b, Tensor v, Tensor allowed, Tensor k2, Tensor g, Tensor s)"
      " -> (Tensor, Tensor, Tensor)");
}

TORCH_LIBRARY_IMPL(sanbench_cpu, CPU, m) {
  m.impl("tile_sums", &tile_sums);
  m.impl("tile_grads", &tile_grads);
}
