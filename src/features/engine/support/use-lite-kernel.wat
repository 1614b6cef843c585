;; The built-in encoder's one hot loop (use-lite.ts's int8 dense layers) in WebAssembly SIMD, in
;; integers, its sparse form, and attention's two products (at the end). Assembled by scripts/build-use-lite-kernel.ts (wabt) into assets/engine/use-lite-kernel.wasm,
;; which use-lite-kernel.ts loads; a unit test checks the committed file is this text's.
;;
;; out[i][j] = f32(q[i] . w[j]) * rowScale[i] * scale[j] + bias[j], for i < n and j < m, where a holds
;; n rows of k float32s and w holds m rows of k int8s (one scale a row). Each row of a is first
;; quantized to int16 with its own scale ($quantize: its largest magnitude becomes 16383, each value
;; x is nearest(f32(x * f32(16383 / max))), ties to even, and rowScale = f32(max / 16383); a row of
;; zeros gives zeros). Sixteen weights a step are loaded and widened to two i16x8
;; (i16x8.extend_low/high_i8x16_s), and i32x4.dot_i16x8_s sums the products in pairs into i32
;; lanes, eight rows of q a weight read (four, two, then one for the last rows when n is not a
;; multiple of 8: no row beyond n is computed).
;;
;; No sum overflows. |q| <= 16383 and |w| <= 127 (quantizeRows: round(x / scale) with scale the
;; row's largest magnitude / 127), so a product is at most 2,080,641 in magnitude; each i32 lane
;; holds k/4 products (two a dot for each eight columns), at most k/4 x 2,080,641, which is below
;; 2^31 (2,147,483,648) for k <= 4,128, so for k <= 2048: the model's widths are k = 256 (layer 0's
;; qkv, output and widening), 512 (layer 1's, both layers' ffn1, the tanh layer) and 1536 (ffn2):
;; at most 384 x 2,080,641 = 798,966,144 a lane. The four lanes are added in i64 (their sum,
;; k x 2,080,641 = 3.2e9 at k = 1536, may not fit in an i32), exactly, and converted to float32 once.
;; Integer sums are exact in any order, so the result is a function of the inputs alone
;; (tests/unit/engine/use-lite-kernel.test.ts holds it to a JavaScript model of the same sums).
;;
;; All addresses are bytes in the caller's memory (use-lite-kernel.ts's kernelMemory, which pads
;; every buffer to 16 bytes and gives the scratch: q, eight rows of k int16s, and qs, eight
;; float32 row scales; "sparse" adds its list of inputs). k is a multiple of 16 (the model's widths
;; are 256, 512 and 1536).
(module
  (import "m" "memory" (memory 0))

  ;; Quantizes `rows` rows of k float32s at src into int16s at q and their scales (float32) at qs.
  ;; q holds the rows sixteen columns at a time, in the order the dense loop reads them: columns
  ;; p..p+15 of row 0, of row 1, ..., of the last row, then columns p+16..p+31 of row 0, and so on.
  (func $quantize
    (param $src i32) (param $rows i32) (param $k i32) (param $q i32) (param $qs i32)
    (local $r i32)
    (local $row i32)   ;; row r of src
    (local $qrow i32)  ;; row r's first sixteen values in q
    (local $stride i32) ;; rows x 32: the bytes of the block's sixteen columns in q
    (local $p i32)
    (local $mx v128)
    (local $max f32)
    (local $f v128)    ;; 16383 / max in each lane
    (local.set $r (i32.const 0))
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $r) (local.get $rows)))
        (local.set $row (i32.add (local.get $src) (i32.mul (local.get $r) (i32.shl (local.get $k) (i32.const 2)))))
        (local.set $qrow (i32.add (local.get $q) (i32.shl (local.get $r) (i32.const 5))))
        (local.set $stride (i32.shl (local.get $rows) (i32.const 5)))
        ;; The row's largest magnitude.
        (local.set $mx (v128.const i32x4 0 0 0 0))
        (local.set $p (i32.const 0))
        (block $maxDone
          (loop $maxes
            (br_if $maxDone (i32.ge_u (local.get $p) (local.get $k)))
            (local.set $mx
              (f32x4.max (local.get $mx)
                (f32x4.abs (v128.load align=1 (i32.add (local.get $row) (i32.shl (local.get $p) (i32.const 2)))))))
            (local.set $p (i32.add (local.get $p) (i32.const 4)))
            (br $maxes)))
        (local.set $max
          (f32.max
            (f32.max (f32x4.extract_lane 0 (local.get $mx)) (f32x4.extract_lane 1 (local.get $mx)))
            (f32.max (f32x4.extract_lane 2 (local.get $mx)) (f32x4.extract_lane 3 (local.get $mx)))))
        (if (f32.gt (local.get $max) (f32.const 0))
          (then
            (local.set $f (f32x4.splat (f32.div (f32.const 16383) (local.get $max))))
            (f32.store (i32.add (local.get $qs) (i32.shl (local.get $r) (i32.const 2)))
              (f32.div (local.get $max) (f32.const 16383))))
          (else
            (local.set $f (v128.const i32x4 0 0 0 0))
            (f32.store (i32.add (local.get $qs) (i32.shl (local.get $r) (i32.const 2))) (f32.const 0))))
        ;; Eight values a step: scaled, rounded to the nearest (ties to even), packed to int16.
        (local.set $p (i32.const 0))
        (block $packDone
          (loop $packs
            (br_if $packDone (i32.ge_u (local.get $p) (local.get $k)))
            ;; q[p / 16][r][p % 16]: at (p / 16) x stride + r x 32 + (p % 16) x 2.
            (v128.store align=1
              (i32.add (local.get $qrow)
                (i32.add (i32.mul (i32.shr_u (local.get $p) (i32.const 4)) (local.get $stride))
                  (i32.shl (i32.and (local.get $p) (i32.const 8)) (i32.const 1))))
              (i16x8.narrow_i32x4_s
                (i32x4.trunc_sat_f32x4_s
                  (f32x4.nearest
                    (f32x4.mul (v128.load align=1 (i32.add (local.get $row) (i32.shl (local.get $p) (i32.const 2)))) (local.get $f))))
                (i32x4.trunc_sat_f32x4_s
                  (f32x4.nearest
                    (f32x4.mul (v128.load align=1 (i32.add (local.get $row) (i32.add (i32.shl (local.get $p) (i32.const 2)) (i32.const 16)))) (local.get $f))))))
            (local.set $p (i32.add (local.get $p) (i32.const 8)))
            (br $packs)))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $each))))

  (func (export "dense")
    (param $a i32)     ;; float32 rows of k: the input
    (param $n i32)     ;; rows of a
    (param $w i32)     ;; int8 rows of k: the matrix, one output a row
    (param $scale i32) ;; float32 a row of w
    (param $bias i32)  ;; float32 a row of w
    (param $m i32)     ;; rows of w (outputs)
    (param $k i32)     ;; columns of a and w (a multiple of 16)
    (param $out i32)   ;; float32 rows of m: the output
    (param $q i32)     ;; scratch: eight int16 rows of k, the rows of a being computed, quantized ($quantize)
    (param $qs i32)    ;; scratch: their eight scales (float32)
    (local $i i32)     ;; the first of the eight (or four) rows of a being computed
    (local $j i32)     ;; the row of w (the output column)
    (local $rowBytes i32) ;; k * 4: a row of a, in bytes
    (local $wp i32)    ;; w[j][p]
    (local $wEnd i32)  ;; the end of row j of w
    (local $qp i32)    ;; the block's rows' columns p..p+15 in q (row r at r x 32 bytes)
    (local $acc0 v128) ;; partial sums (i32 lanes) of rows i, i+1, ..., i+7 against row j of w
    (local $acc1 v128)
    (local $acc2 v128)
    (local $acc3 v128)
    (local $acc4 v128)
    (local $acc5 v128)
    (local $acc6 v128)
    (local $acc7 v128)
    (local $wv v128)   ;; w[j][p..p+15], int8
    (local $wlo v128)  ;; w[j][p..p+7] as int16
    (local $whi v128)  ;; w[j][p+8..p+15] as int16
    (local $sc f32)    ;; scale[j]
    (local $b f32)     ;; bias[j]

    (local.set $rowBytes (i32.shl (local.get $k) (i32.const 2)))
    (local.set $i (i32.const 0))
    ;; Eight rows at a time while eight are left.
    (block $eightsDone
      (loop $eights
        (br_if $eightsDone (i32.gt_u (i32.add (local.get $i) (i32.const 8)) (local.get $n)))
        (call $quantize (i32.add (local.get $a) (i32.mul (local.get $i) (local.get $rowBytes))) (i32.const 8) (local.get $k) (local.get $q) (local.get $qs))
        (local.set $j (i32.const 0))
        (block $outputsDone8
          (loop $outputs8
            (br_if $outputsDone8 (i32.ge_u (local.get $j) (local.get $m)))
            (local.set $acc0 (v128.const i32x4 0 0 0 0))
            (local.set $acc1 (v128.const i32x4 0 0 0 0))
            (local.set $acc2 (v128.const i32x4 0 0 0 0))
            (local.set $acc3 (v128.const i32x4 0 0 0 0))
            (local.set $acc4 (v128.const i32x4 0 0 0 0))
            (local.set $acc5 (v128.const i32x4 0 0 0 0))
            (local.set $acc6 (v128.const i32x4 0 0 0 0))
            (local.set $acc7 (v128.const i32x4 0 0 0 0))
            (local.set $wp (i32.add (local.get $w) (i32.mul (local.get $j) (local.get $k))))
            (local.set $wEnd (i32.add (local.get $wp) (local.get $k)))
            (local.set $qp (local.get $q))
            (block $columnsDone8
              (loop $columns8
                (br_if $columnsDone8 (i32.ge_u (local.get $wp) (local.get $wEnd)))
                ;; Sixteen int8 weights, widened to two i16x8.
                (local.set $wv (v128.load align=1 (local.get $wp)))
                (local.set $wlo (i16x8.extend_low_i8x16_s (local.get $wv)))
                (local.set $whi (i16x8.extend_high_i8x16_s (local.get $wv)))
                ;; acc[r] += q[r][p..p+15] . w[j][p..p+15], in pairs of products (i32x4.dot_i16x8_s); the
                ;; block's 8 rows' sixteen values are 256 bytes in a row of the scratch (r x 32 bytes apart).
                (local.set $acc0
                  (i32x4.add (local.get $acc0)
                    (i32x4.add
                      (i32x4.dot_i16x8_s (v128.load offset=0 (local.get $qp)) (local.get $wlo))
                      (i32x4.dot_i16x8_s (v128.load offset=16 (local.get $qp)) (local.get $whi)))))
                (local.set $acc1
                  (i32x4.add (local.get $acc1)
                    (i32x4.add
                      (i32x4.dot_i16x8_s (v128.load offset=32 (local.get $qp)) (local.get $wlo))
                      (i32x4.dot_i16x8_s (v128.load offset=48 (local.get $qp)) (local.get $whi)))))
                (local.set $acc2
                  (i32x4.add (local.get $acc2)
                    (i32x4.add
                      (i32x4.dot_i16x8_s (v128.load offset=64 (local.get $qp)) (local.get $wlo))
                      (i32x4.dot_i16x8_s (v128.load offset=80 (local.get $qp)) (local.get $whi)))))
                (local.set $acc3
                  (i32x4.add (local.get $acc3)
                    (i32x4.add
                      (i32x4.dot_i16x8_s (v128.load offset=96 (local.get $qp)) (local.get $wlo))
                      (i32x4.dot_i16x8_s (v128.load offset=112 (local.get $qp)) (local.get $whi)))))
                (local.set $acc4
                  (i32x4.add (local.get $acc4)
                    (i32x4.add
                      (i32x4.dot_i16x8_s (v128.load offset=128 (local.get $qp)) (local.get $wlo))
                      (i32x4.dot_i16x8_s (v128.load offset=144 (local.get $qp)) (local.get $whi)))))
                (local.set $acc5
                  (i32x4.add (local.get $acc5)
                    (i32x4.add
                      (i32x4.dot_i16x8_s (v128.load offset=160 (local.get $qp)) (local.get $wlo))
                      (i32x4.dot_i16x8_s (v128.load offset=176 (local.get $qp)) (local.get $whi)))))
                (local.set $acc6
                  (i32x4.add (local.get $acc6)
                    (i32x4.add
                      (i32x4.dot_i16x8_s (v128.load offset=192 (local.get $qp)) (local.get $wlo))
                      (i32x4.dot_i16x8_s (v128.load offset=208 (local.get $qp)) (local.get $whi)))))
                (local.set $acc7
                  (i32x4.add (local.get $acc7)
                    (i32x4.add
                      (i32x4.dot_i16x8_s (v128.load offset=224 (local.get $qp)) (local.get $wlo))
                      (i32x4.dot_i16x8_s (v128.load offset=240 (local.get $qp)) (local.get $whi)))))
                (local.set $wp (i32.add (local.get $wp) (i32.const 16)))
                (local.set $qp (i32.add (local.get $qp) (i32.const 256)))
                (br $columns8)))
            ;; out[i + r][j] = f32(acc[r].0 + acc[r].1 + acc[r].2 + acc[r].3, summed exactly in i64)
            ;;   * rowScale[r] * scale[j] + bias[j], written out for each row (a call cost 7-9% before).
            (local.set $sc (f32.load (i32.add (local.get $scale) (i32.shl (local.get $j) (i32.const 2)))))
            (local.set $b (f32.load (i32.add (local.get $bias) (i32.shl (local.get $j) (i32.const 2)))))
            (f32.store
              (i32.add (local.get $out) (i32.shl (i32.add (i32.mul (local.get $i) (local.get $m)) (local.get $j)) (i32.const 2)))
              (f32.add
                (f32.mul
                  (f32.mul
                    (f32.convert_i64_s
                      (i64.add
                        (i64.add (i64.extend_i32_s (i32x4.extract_lane 0 (local.get $acc0))) (i64.extend_i32_s (i32x4.extract_lane 1 (local.get $acc0))))
                        (i64.add (i64.extend_i32_s (i32x4.extract_lane 2 (local.get $acc0))) (i64.extend_i32_s (i32x4.extract_lane 3 (local.get $acc0))))))
                    (f32.load offset=0 (local.get $qs)))
                  (local.get $sc))
                (local.get $b)))
            (f32.store
              (i32.add (local.get $out) (i32.shl (i32.add (i32.mul (i32.add (local.get $i) (i32.const 1)) (local.get $m)) (local.get $j)) (i32.const 2)))
              (f32.add
                (f32.mul
                  (f32.mul
                    (f32.convert_i64_s
                      (i64.add
                        (i64.add (i64.extend_i32_s (i32x4.extract_lane 0 (local.get $acc1))) (i64.extend_i32_s (i32x4.extract_lane 1 (local.get $acc1))))
                        (i64.add (i64.extend_i32_s (i32x4.extract_lane 2 (local.get $acc1))) (i64.extend_i32_s (i32x4.extract_lane 3 (local.get $acc1))))))
                    (f32.load offset=4 (local.get $qs)))
                  (local.get $sc))
                (local.get $b)))
            (f32.store
              (i32.add (local.get $out) (i32.shl (i32.add (i32.mul (i32.add (local.get $i) (i32.const 2)) (local.get $m)) (local.get $j)) (i32.const 2)))
              (f32.add
                (f32.mul
                  (f32.mul
                    (f32.convert_i64_s
                      (i64.add
                        (i64.add (i64.extend_i32_s (i32x4.extract_lane 0 (local.get $acc2))) (i64.extend_i32_s (i32x4.extract_lane 1 (local.get $acc2))))
                        (i64.add (i64.extend_i32_s (i32x4.extract_lane 2 (local.get $acc2))) (i64.extend_i32_s (i32x4.extract_lane 3 (local.get $acc2))))))
                    (f32.load offset=8 (local.get $qs)))
                  (local.get $sc))
                (local.get $b)))
            (f32.store
              (i32.add (local.get $out) (i32.shl (i32.add (i32.mul (i32.add (local.get $i) (i32.const 3)) (local.get $m)) (local.get $j)) (i32.const 2)))
              (f32.add
                (f32.mul
                  (f32.mul
                    (f32.convert_i64_s
                      (i64.add
                        (i64.add (i64.extend_i32_s (i32x4.extract_lane 0 (local.get $acc3))) (i64.extend_i32_s (i32x4.extract_lane 1 (local.get $acc3))))
                        (i64.add (i64.extend_i32_s (i32x4.extract_lane 2 (local.get $acc3))) (i64.extend_i32_s (i32x4.extract_lane 3 (local.get $acc3))))))
                    (f32.load offset=12 (local.get $qs)))
                  (local.get $sc))
                (local.get $b)))
            (f32.store
              (i32.add (local.get $out) (i32.shl (i32.add (i32.mul (i32.add (local.get $i) (i32.const 4)) (local.get $m)) (local.get $j)) (i32.const 2)))
              (f32.add
                (f32.mul
                  (f32.mul
                    (f32.convert_i64_s
                      (i64.add
                        (i64.add (i64.extend_i32_s (i32x4.extract_lane 0 (local.get $acc4))) (i64.extend_i32_s (i32x4.extract_lane 1 (local.get $acc4))))
                        (i64.add (i64.extend_i32_s (i32x4.extract_lane 2 (local.get $acc4))) (i64.extend_i32_s (i32x4.extract_lane 3 (local.get $acc4))))))
                    (f32.load offset=16 (local.get $qs)))
                  (local.get $sc))
                (local.get $b)))
            (f32.store
              (i32.add (local.get $out) (i32.shl (i32.add (i32.mul (i32.add (local.get $i) (i32.const 5)) (local.get $m)) (local.get $j)) (i32.const 2)))
              (f32.add
                (f32.mul
                  (f32.mul
                    (f32.convert_i64_s
                      (i64.add
                        (i64.add (i64.extend_i32_s (i32x4.extract_lane 0 (local.get $acc5))) (i64.extend_i32_s (i32x4.extract_lane 1 (local.get $acc5))))
                        (i64.add (i64.extend_i32_s (i32x4.extract_lane 2 (local.get $acc5))) (i64.extend_i32_s (i32x4.extract_lane 3 (local.get $acc5))))))
                    (f32.load offset=20 (local.get $qs)))
                  (local.get $sc))
                (local.get $b)))
            (f32.store
              (i32.add (local.get $out) (i32.shl (i32.add (i32.mul (i32.add (local.get $i) (i32.const 6)) (local.get $m)) (local.get $j)) (i32.const 2)))
              (f32.add
                (f32.mul
                  (f32.mul
                    (f32.convert_i64_s
                      (i64.add
                        (i64.add (i64.extend_i32_s (i32x4.extract_lane 0 (local.get $acc6))) (i64.extend_i32_s (i32x4.extract_lane 1 (local.get $acc6))))
                        (i64.add (i64.extend_i32_s (i32x4.extract_lane 2 (local.get $acc6))) (i64.extend_i32_s (i32x4.extract_lane 3 (local.get $acc6))))))
                    (f32.load offset=24 (local.get $qs)))
                  (local.get $sc))
                (local.get $b)))
            (f32.store
              (i32.add (local.get $out) (i32.shl (i32.add (i32.mul (i32.add (local.get $i) (i32.const 7)) (local.get $m)) (local.get $j)) (i32.const 2)))
              (f32.add
                (f32.mul
                  (f32.mul
                    (f32.convert_i64_s
                      (i64.add
                        (i64.add (i64.extend_i32_s (i32x4.extract_lane 0 (local.get $acc7))) (i64.extend_i32_s (i32x4.extract_lane 1 (local.get $acc7))))
                        (i64.add (i64.extend_i32_s (i32x4.extract_lane 2 (local.get $acc7))) (i64.extend_i32_s (i32x4.extract_lane 3 (local.get $acc7))))))
                    (f32.load offset=28 (local.get $qs)))
                  (local.get $sc))
                (local.get $b)))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br $outputs8)))
        (local.set $i (i32.add (local.get $i) (i32.const 8)))
        (br $eights)))
    ;; The rows left when n is not a multiple of 8: four, then two, then one at a time (a row to
    ;; spare costs as much as a row, and a question has 9-21 pieces).
    (block $rowsDone4
      (loop $rows4
        (br_if $rowsDone4 (i32.gt_u (i32.add (local.get $i) (i32.const 4)) (local.get $n)))
        (call $quantize (i32.add (local.get $a) (i32.mul (local.get $i) (local.get $rowBytes))) (i32.const 4) (local.get $k) (local.get $q) (local.get $qs))
        (local.set $j (i32.const 0))
        (block $outputsDone4
          (loop $outputs4
            (br_if $outputsDone4 (i32.ge_u (local.get $j) (local.get $m)))
            (local.set $acc0 (v128.const i32x4 0 0 0 0))
            (local.set $acc1 (v128.const i32x4 0 0 0 0))
            (local.set $acc2 (v128.const i32x4 0 0 0 0))
            (local.set $acc3 (v128.const i32x4 0 0 0 0))
            (local.set $wp (i32.add (local.get $w) (i32.mul (local.get $j) (local.get $k))))
            (local.set $wEnd (i32.add (local.get $wp) (local.get $k)))
            (local.set $qp (local.get $q))
            (block $columnsDone4
              (loop $columns4
                (br_if $columnsDone4 (i32.ge_u (local.get $wp) (local.get $wEnd)))
                ;; Sixteen int8 weights, widened to two i16x8.
                (local.set $wv (v128.load align=1 (local.get $wp)))
                (local.set $wlo (i16x8.extend_low_i8x16_s (local.get $wv)))
                (local.set $whi (i16x8.extend_high_i8x16_s (local.get $wv)))
                ;; acc[r] += q[r][p..p+15] . w[j][p..p+15]; the block's 4 rows' sixteen values are 128 bytes of the scratch.
                (local.set $acc0
                  (i32x4.add (local.get $acc0)
                    (i32x4.add
                      (i32x4.dot_i16x8_s (v128.load offset=0 (local.get $qp)) (local.get $wlo))
                      (i32x4.dot_i16x8_s (v128.load offset=16 (local.get $qp)) (local.get $whi)))))
                (local.set $acc1
                  (i32x4.add (local.get $acc1)
                    (i32x4.add
                      (i32x4.dot_i16x8_s (v128.load offset=32 (local.get $qp)) (local.get $wlo))
                      (i32x4.dot_i16x8_s (v128.load offset=48 (local.get $qp)) (local.get $whi)))))
                (local.set $acc2
                  (i32x4.add (local.get $acc2)
                    (i32x4.add
                      (i32x4.dot_i16x8_s (v128.load offset=64 (local.get $qp)) (local.get $wlo))
                      (i32x4.dot_i16x8_s (v128.load offset=80 (local.get $qp)) (local.get $whi)))))
                (local.set $acc3
                  (i32x4.add (local.get $acc3)
                    (i32x4.add
                      (i32x4.dot_i16x8_s (v128.load offset=96 (local.get $qp)) (local.get $wlo))
                      (i32x4.dot_i16x8_s (v128.load offset=112 (local.get $qp)) (local.get $whi)))))
                (local.set $wp (i32.add (local.get $wp) (i32.const 16)))
                (local.set $qp (i32.add (local.get $qp) (i32.const 128)))
                (br $columns4)))
            ;; out[i + r][j], as for eight rows.
            (local.set $sc (f32.load (i32.add (local.get $scale) (i32.shl (local.get $j) (i32.const 2)))))
            (local.set $b (f32.load (i32.add (local.get $bias) (i32.shl (local.get $j) (i32.const 2)))))
            (f32.store
              (i32.add (local.get $out) (i32.shl (i32.add (i32.mul (local.get $i) (local.get $m)) (local.get $j)) (i32.const 2)))
              (f32.add
                (f32.mul
                  (f32.mul
                    (f32.convert_i64_s
                      (i64.add
                        (i64.add (i64.extend_i32_s (i32x4.extract_lane 0 (local.get $acc0))) (i64.extend_i32_s (i32x4.extract_lane 1 (local.get $acc0))))
                        (i64.add (i64.extend_i32_s (i32x4.extract_lane 2 (local.get $acc0))) (i64.extend_i32_s (i32x4.extract_lane 3 (local.get $acc0))))))
                    (f32.load offset=0 (local.get $qs)))
                  (local.get $sc))
                (local.get $b)))
            (f32.store
              (i32.add (local.get $out) (i32.shl (i32.add (i32.mul (i32.add (local.get $i) (i32.const 1)) (local.get $m)) (local.get $j)) (i32.const 2)))
              (f32.add
                (f32.mul
                  (f32.mul
                    (f32.convert_i64_s
                      (i64.add
                        (i64.add (i64.extend_i32_s (i32x4.extract_lane 0 (local.get $acc1))) (i64.extend_i32_s (i32x4.extract_lane 1 (local.get $acc1))))
                        (i64.add (i64.extend_i32_s (i32x4.extract_lane 2 (local.get $acc1))) (i64.extend_i32_s (i32x4.extract_lane 3 (local.get $acc1))))))
                    (f32.load offset=4 (local.get $qs)))
                  (local.get $sc))
                (local.get $b)))
            (f32.store
              (i32.add (local.get $out) (i32.shl (i32.add (i32.mul (i32.add (local.get $i) (i32.const 2)) (local.get $m)) (local.get $j)) (i32.const 2)))
              (f32.add
                (f32.mul
                  (f32.mul
                    (f32.convert_i64_s
                      (i64.add
                        (i64.add (i64.extend_i32_s (i32x4.extract_lane 0 (local.get $acc2))) (i64.extend_i32_s (i32x4.extract_lane 1 (local.get $acc2))))
                        (i64.add (i64.extend_i32_s (i32x4.extract_lane 2 (local.get $acc2))) (i64.extend_i32_s (i32x4.extract_lane 3 (local.get $acc2))))))
                    (f32.load offset=8 (local.get $qs)))
                  (local.get $sc))
                (local.get $b)))
            (f32.store
              (i32.add (local.get $out) (i32.shl (i32.add (i32.mul (i32.add (local.get $i) (i32.const 3)) (local.get $m)) (local.get $j)) (i32.const 2)))
              (f32.add
                (f32.mul
                  (f32.mul
                    (f32.convert_i64_s
                      (i64.add
                        (i64.add (i64.extend_i32_s (i32x4.extract_lane 0 (local.get $acc3))) (i64.extend_i32_s (i32x4.extract_lane 1 (local.get $acc3))))
                        (i64.add (i64.extend_i32_s (i32x4.extract_lane 2 (local.get $acc3))) (i64.extend_i32_s (i32x4.extract_lane 3 (local.get $acc3))))))
                    (f32.load offset=12 (local.get $qs)))
                  (local.get $sc))
                (local.get $b)))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br $outputs4)))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
        (br $rows4)))
    (block $rowsDone2
      (loop $rows2
        (br_if $rowsDone2 (i32.gt_u (i32.add (local.get $i) (i32.const 2)) (local.get $n)))
        (call $quantize (i32.add (local.get $a) (i32.mul (local.get $i) (local.get $rowBytes))) (i32.const 2) (local.get $k) (local.get $q) (local.get $qs))
        (local.set $j (i32.const 0))
        (block $outputsDone2
          (loop $outputs2
            (br_if $outputsDone2 (i32.ge_u (local.get $j) (local.get $m)))
            (local.set $acc0 (v128.const i32x4 0 0 0 0))
            (local.set $acc1 (v128.const i32x4 0 0 0 0))
            (local.set $wp (i32.add (local.get $w) (i32.mul (local.get $j) (local.get $k))))
            (local.set $wEnd (i32.add (local.get $wp) (local.get $k)))
            (local.set $qp (local.get $q))
            (block $columnsDone2
              (loop $columns2
                (br_if $columnsDone2 (i32.ge_u (local.get $wp) (local.get $wEnd)))
                ;; Sixteen int8 weights, widened to two i16x8.
                (local.set $wv (v128.load align=1 (local.get $wp)))
                (local.set $wlo (i16x8.extend_low_i8x16_s (local.get $wv)))
                (local.set $whi (i16x8.extend_high_i8x16_s (local.get $wv)))
                ;; acc[r] += q[r][p..p+15] . w[j][p..p+15]; the block's 2 rows' sixteen values are 64 bytes of the scratch.
                (local.set $acc0
                  (i32x4.add (local.get $acc0)
                    (i32x4.add
                      (i32x4.dot_i16x8_s (v128.load offset=0 (local.get $qp)) (local.get $wlo))
                      (i32x4.dot_i16x8_s (v128.load offset=16 (local.get $qp)) (local.get $whi)))))
                (local.set $acc1
                  (i32x4.add (local.get $acc1)
                    (i32x4.add
                      (i32x4.dot_i16x8_s (v128.load offset=32 (local.get $qp)) (local.get $wlo))
                      (i32x4.dot_i16x8_s (v128.load offset=48 (local.get $qp)) (local.get $whi)))))
                (local.set $wp (i32.add (local.get $wp) (i32.const 16)))
                (local.set $qp (i32.add (local.get $qp) (i32.const 64)))
                (br $columns2)))
            ;; out[i + r][j], as for eight rows.
            (local.set $sc (f32.load (i32.add (local.get $scale) (i32.shl (local.get $j) (i32.const 2)))))
            (local.set $b (f32.load (i32.add (local.get $bias) (i32.shl (local.get $j) (i32.const 2)))))
            (f32.store
              (i32.add (local.get $out) (i32.shl (i32.add (i32.mul (local.get $i) (local.get $m)) (local.get $j)) (i32.const 2)))
              (f32.add
                (f32.mul
                  (f32.mul
                    (f32.convert_i64_s
                      (i64.add
                        (i64.add (i64.extend_i32_s (i32x4.extract_lane 0 (local.get $acc0))) (i64.extend_i32_s (i32x4.extract_lane 1 (local.get $acc0))))
                        (i64.add (i64.extend_i32_s (i32x4.extract_lane 2 (local.get $acc0))) (i64.extend_i32_s (i32x4.extract_lane 3 (local.get $acc0))))))
                    (f32.load offset=0 (local.get $qs)))
                  (local.get $sc))
                (local.get $b)))
            (f32.store
              (i32.add (local.get $out) (i32.shl (i32.add (i32.mul (i32.add (local.get $i) (i32.const 1)) (local.get $m)) (local.get $j)) (i32.const 2)))
              (f32.add
                (f32.mul
                  (f32.mul
                    (f32.convert_i64_s
                      (i64.add
                        (i64.add (i64.extend_i32_s (i32x4.extract_lane 0 (local.get $acc1))) (i64.extend_i32_s (i32x4.extract_lane 1 (local.get $acc1))))
                        (i64.add (i64.extend_i32_s (i32x4.extract_lane 2 (local.get $acc1))) (i64.extend_i32_s (i32x4.extract_lane 3 (local.get $acc1))))))
                    (f32.load offset=4 (local.get $qs)))
                  (local.get $sc))
                (local.get $b)))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br $outputs2)))
        (local.set $i (i32.add (local.get $i) (i32.const 2)))
        (br $rows2)))
    (block $rowsDone1
      (loop $rows1
        (br_if $rowsDone1 (i32.gt_u (i32.add (local.get $i) (i32.const 1)) (local.get $n)))
        (call $quantize (i32.add (local.get $a) (i32.mul (local.get $i) (local.get $rowBytes))) (i32.const 1) (local.get $k) (local.get $q) (local.get $qs))
        (local.set $j (i32.const 0))
        (block $outputsDone1
          (loop $outputs1
            (br_if $outputsDone1 (i32.ge_u (local.get $j) (local.get $m)))
            (local.set $acc0 (v128.const i32x4 0 0 0 0))
            (local.set $wp (i32.add (local.get $w) (i32.mul (local.get $j) (local.get $k))))
            (local.set $wEnd (i32.add (local.get $wp) (local.get $k)))
            (local.set $qp (local.get $q))
            (block $columnsDone1
              (loop $columns1
                (br_if $columnsDone1 (i32.ge_u (local.get $wp) (local.get $wEnd)))
                ;; Sixteen int8 weights, widened to two i16x8.
                (local.set $wv (v128.load align=1 (local.get $wp)))
                (local.set $wlo (i16x8.extend_low_i8x16_s (local.get $wv)))
                (local.set $whi (i16x8.extend_high_i8x16_s (local.get $wv)))
                ;; acc[r] += q[r][p..p+15] . w[j][p..p+15]; the block's 1 row' sixteen values are 32 bytes of the scratch.
                (local.set $acc0
                  (i32x4.add (local.get $acc0)
                    (i32x4.add
                      (i32x4.dot_i16x8_s (v128.load offset=0 (local.get $qp)) (local.get $wlo))
                      (i32x4.dot_i16x8_s (v128.load offset=16 (local.get $qp)) (local.get $whi)))))
                (local.set $wp (i32.add (local.get $wp) (i32.const 16)))
                (local.set $qp (i32.add (local.get $qp) (i32.const 32)))
                (br $columns1)))
            ;; out[i + r][j], as for eight rows.
            (local.set $sc (f32.load (i32.add (local.get $scale) (i32.shl (local.get $j) (i32.const 2)))))
            (local.set $b (f32.load (i32.add (local.get $bias) (i32.shl (local.get $j) (i32.const 2)))))
            (f32.store
              (i32.add (local.get $out) (i32.shl (i32.add (i32.mul (local.get $i) (local.get $m)) (local.get $j)) (i32.const 2)))
              (f32.add
                (f32.mul
                  (f32.mul
                    (f32.convert_i64_s
                      (i64.add
                        (i64.add (i64.extend_i32_s (i32x4.extract_lane 0 (local.get $acc0))) (i64.extend_i32_s (i32x4.extract_lane 1 (local.get $acc0))))
                        (i64.add (i64.extend_i32_s (i32x4.extract_lane 2 (local.get $acc0))) (i64.extend_i32_s (i32x4.extract_lane 3 (local.get $acc0))))))
                    (f32.load offset=0 (local.get $qs)))
                  (local.get $sc))
                (local.get $b)))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br $outputs1)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $rows1))))
  ;; The same products for a matrix whose inputs are mostly zeros (the feed-forward layers' second
  ;; product, whose input is a ReLU's output: about 92 % zeros), the same bits as "dense": each row
  ;; of a is quantized as "dense" quantizes it, and its integer sums (q[p] x w[j][p]) are made over
  ;; its p with q[p] != 0 only, which leaves every sum the same integer (a zero's products are 0).
  ;; w is laid out for this loop (use-lite-kernel.ts's sparseLayout): a block for each 32 outputs (at
  ;; w + j x k for outputs j..j+31), of k rows of 32 int8s, row p the weights of input p for the
  ;; block's outputs, each sixteen outputs j..j+15 in the order j, j+4, j+1,
  ;; j+5, j+2, j+6, j+3, j+7, then j+8, j+12, ..., j+15, so that i32x4.dot_i16x8_s of their widened
  ;; values and q[p] in the even (or odd) int16 lanes (0 in the others) gives outputs j..j+3 (or
  ;; j+4..j+7) in its four i32 lanes. Outputs are made 32 at a time (eight i32x4 sums); m is a
  ;; multiple of 32. A lane adds one product an input, at most 2,080,641 in magnitude, so 1024 of them
  ;; fit an i32 (2,130,576,384 < 2^31): the inputs are taken 1024 at a time, each run's sums added
  ;; into i64 totals (a single run's used as they are), and out[i][j] = f32(total) * rowScale *
  ;; scale[j] + bias[j], as "dense" makes it.
  ;; n is the rows' number itself (no rows to spare are computed).
  (func (export "sparse")
    (param $a i32) (param $n i32) (param $w i32) (param $scale i32) (param $bias i32) (param $m i32)
    (param $k i32) (param $out i32) (param $q i32) (param $qs i32)
    (param $nz i32)    ;; scratch: k entries of 12 bytes (p x 32, q[p] in even and in odd int16 lanes), then 384 bytes
    (local $i i32)
    (local $p i32)
    (local $v i32)
    (local $cnt i32)   ;; the row's inputs that are not 0
    (local $mask i32)  ;; sixteen inputs' bits, 1 where not 0
    (local $e i32)     ;; an entry of nz
    (local $end i32)
    (local $s i32)     ;; the first entry of a run of at most 1024
    (local $runEnd i32)
    (local $j i32)     ;; the first of the 32 outputs being made
    (local $jj i32)
    (local $o i32)
    (local $base i32)  ;; the 32 outputs' block of w
    (local $wp i32)
    (local $sums i32)  ;; scratch: the eight i32x4 sums of a run (128 bytes)
    (local $totals i32) ;; scratch: the 32 outputs' i64 totals (256 bytes)
    (local $rs f32)
    (local $qe v128)
    (local $qo v128)
    (local $wv v128)
    (local $wlo v128)
    (local $whi v128)
    (local $acc0 v128)
    (local $acc1 v128)
    (local $acc2 v128)
    (local $acc3 v128)
    (local $acc4 v128)
    (local $acc5 v128)
    (local $acc6 v128)
    (local $acc7 v128)
    (local.set $sums (i32.add (local.get $nz) (i32.mul (local.get $k) (i32.const 12))))
    (local.set $totals (i32.add (local.get $sums) (i32.const 128)))
    (local.set $i (i32.const 0))
    (block $rowsDone
      (loop $rows
        (br_if $rowsDone (i32.ge_u (local.get $i) (local.get $n)))
        ;; One row quantized: its int16 values side by side at q (one row's blocks are its columns in order).
        (call $quantize (i32.add (local.get $a) (i32.mul (local.get $i) (i32.shl (local.get $k) (i32.const 2)))) (i32.const 1) (local.get $k) (local.get $q) (local.get $qs))
        (local.set $rs (f32.load (local.get $qs)))
        ;; Its inputs that are not 0, listed sixteen values at a time: a mask of those not 0
        ;; (i16x8.ne, narrowed to bytes, i8x16.bitmask), then each of its bits, lowest first.
        (local.set $cnt (i32.const 0))
        (local.set $p (i32.const 0))
        (block $listDone
          (loop $list
            (br_if $listDone (i32.ge_u (local.get $p) (local.get $k)))
            (local.set $e (i32.add (local.get $q) (i32.shl (local.get $p) (i32.const 1))))
            (local.set $mask
              (i8x16.bitmask
                (i8x16.narrow_i16x8_s
                  (i16x8.ne (v128.load (local.get $e)) (v128.const i32x4 0 0 0 0))
                  (i16x8.ne (v128.load offset=16 (local.get $e)) (v128.const i32x4 0 0 0 0)))))
            (block $bitsDone
              (loop $bits
                (br_if $bitsDone (i32.eqz (local.get $mask)))
                (local.set $v (i32.add (local.get $p) (i32.ctz (local.get $mask))))
                (local.set $e (i32.add (local.get $nz) (i32.mul (local.get $cnt) (i32.const 12))))
                (i32.store (local.get $e) (i32.shl (local.get $v) (i32.const 5)))
                (local.set $v (i32.load16_s (i32.add (local.get $q) (i32.shl (local.get $v) (i32.const 1)))))
                (i32.store offset=4 (local.get $e) (i32.and (local.get $v) (i32.const 0xffff)))
                (i32.store offset=8 (local.get $e) (i32.shl (local.get $v) (i32.const 16)))
                (local.set $cnt (i32.add (local.get $cnt) (i32.const 1)))
                (local.set $mask (i32.and (local.get $mask) (i32.sub (local.get $mask) (i32.const 1))))
                (br $bits)))
            (local.set $p (i32.add (local.get $p) (i32.const 16)))
            (br $list)))
        (local.set $j (i32.const 0))
        (block $outputsDone
          (loop $outputs
            (br_if $outputsDone (i32.ge_u (local.get $j) (local.get $m)))
            (local.set $base (i32.add (local.get $w) (i32.mul (local.get $j) (local.get $k))))
            (local.set $jj (i32.const 0))
            (block $zeroDone
              (loop $zero
                ;; (Totals only when the row has more than one run.)
                (br_if $zeroDone (i32.or (i32.le_u (local.get $cnt) (i32.const 1024)) (i32.ge_u (local.get $jj) (i32.const 32))))
                (i64.store (i32.add (local.get $totals) (i32.shl (local.get $jj) (i32.const 3))) (i64.const 0))
                (local.set $jj (i32.add (local.get $jj) (i32.const 1)))
                (br $zero)))
            (local.set $s (i32.const 0))
            (loop $runs
              (local.set $runEnd
                (select (i32.add (local.get $s) (i32.const 1024)) (local.get $cnt)
                  (i32.lt_u (i32.add (local.get $s) (i32.const 1024)) (local.get $cnt))))
              (local.set $acc0 (v128.const i32x4 0 0 0 0))
              (local.set $acc1 (v128.const i32x4 0 0 0 0))
              (local.set $acc2 (v128.const i32x4 0 0 0 0))
              (local.set $acc3 (v128.const i32x4 0 0 0 0))
              (local.set $acc4 (v128.const i32x4 0 0 0 0))
              (local.set $acc5 (v128.const i32x4 0 0 0 0))
              (local.set $acc6 (v128.const i32x4 0 0 0 0))
              (local.set $acc7 (v128.const i32x4 0 0 0 0))
              (local.set $e (i32.add (local.get $nz) (i32.mul (local.get $s) (i32.const 12))))
              (local.set $end (i32.add (local.get $nz) (i32.mul (local.get $runEnd) (i32.const 12))))
              (block $entriesDone
                (loop $entries
                  (br_if $entriesDone (i32.ge_u (local.get $e) (local.get $end)))
                  (local.set $wp (i32.add (i32.load (local.get $e)) (local.get $base)))
                  (local.set $qe (i32x4.splat (i32.load offset=4 (local.get $e))))
                  (local.set $qo (i32x4.splat (i32.load offset=8 (local.get $e))))
                  (local.set $wv (v128.load align=1 (local.get $wp)))
                  (local.set $wlo (i16x8.extend_low_i8x16_s (local.get $wv)))
                  (local.set $whi (i16x8.extend_high_i8x16_s (local.get $wv)))
                  (local.set $acc0 (i32x4.add (local.get $acc0) (i32x4.dot_i16x8_s (local.get $wlo) (local.get $qe))))
                  (local.set $acc1 (i32x4.add (local.get $acc1) (i32x4.dot_i16x8_s (local.get $wlo) (local.get $qo))))
                  (local.set $acc2 (i32x4.add (local.get $acc2) (i32x4.dot_i16x8_s (local.get $whi) (local.get $qe))))
                  (local.set $acc3 (i32x4.add (local.get $acc3) (i32x4.dot_i16x8_s (local.get $whi) (local.get $qo))))
                  (local.set $wv (v128.load offset=16 align=1 (local.get $wp)))
                  (local.set $wlo (i16x8.extend_low_i8x16_s (local.get $wv)))
                  (local.set $whi (i16x8.extend_high_i8x16_s (local.get $wv)))
                  (local.set $acc4 (i32x4.add (local.get $acc4) (i32x4.dot_i16x8_s (local.get $wlo) (local.get $qe))))
                  (local.set $acc5 (i32x4.add (local.get $acc5) (i32x4.dot_i16x8_s (local.get $wlo) (local.get $qo))))
                  (local.set $acc6 (i32x4.add (local.get $acc6) (i32x4.dot_i16x8_s (local.get $whi) (local.get $qe))))
                  (local.set $acc7 (i32x4.add (local.get $acc7) (i32x4.dot_i16x8_s (local.get $whi) (local.get $qo))))
                  (local.set $e (i32.add (local.get $e) (i32.const 12)))
                  (br $entries)))
              (v128.store offset=0 (local.get $sums) (local.get $acc0))
              (v128.store offset=16 (local.get $sums) (local.get $acc1))
              (v128.store offset=32 (local.get $sums) (local.get $acc2))
              (v128.store offset=48 (local.get $sums) (local.get $acc3))
              (v128.store offset=64 (local.get $sums) (local.get $acc4))
              (v128.store offset=80 (local.get $sums) (local.get $acc5))
              (v128.store offset=96 (local.get $sums) (local.get $acc6))
              (v128.store offset=112 (local.get $sums) (local.get $acc7))
              (local.set $jj (i32.const 0))
              (block $addDone
                (loop $add
                  (br_if $addDone (i32.or (i32.le_u (local.get $cnt) (i32.const 1024)) (i32.ge_u (local.get $jj) (i32.const 32))))
                  (i64.store (i32.add (local.get $totals) (i32.shl (local.get $jj) (i32.const 3)))
                    (i64.add (i64.load (i32.add (local.get $totals) (i32.shl (local.get $jj) (i32.const 3))))
                      (i64.extend_i32_s (i32.load (i32.add (local.get $sums) (i32.shl (local.get $jj) (i32.const 2)))))))
                  (local.set $jj (i32.add (local.get $jj) (i32.const 1)))
                  (br $add)))
              (local.set $s (local.get $runEnd))
              (br_if $runs (i32.lt_u (local.get $s) (local.get $cnt))))
            ;; out[i][j + jj] = f32(total) * rowScale * scale[j + jj] + bias[j + jj], as "dense" makes it.
            (local.set $jj (i32.const 0))
            (block $storeDone
              (loop $store
                (br_if $storeDone (i32.ge_u (local.get $jj) (i32.const 32)))
                (local.set $o (i32.add (local.get $j) (local.get $jj)))
                (f32.store
                  (i32.add (local.get $out) (i32.shl (i32.add (i32.mul (local.get $i) (local.get $m)) (local.get $o)) (i32.const 2)))
                  (f32.add
                    (f32.mul
                      (f32.mul
                        ;; One run's sum as it is: f32.convert_i32_s rounds the same integer as convert_i64_s.
                        (if (result f32) (i32.gt_u (local.get $cnt) (i32.const 1024))
                          (then (f32.convert_i64_s (i64.load (i32.add (local.get $totals) (i32.shl (local.get $jj) (i32.const 3))))))
                          (else (f32.convert_i32_s (i32.load (i32.add (local.get $sums) (i32.shl (local.get $jj) (i32.const 2)))))))
                        (local.get $rs))
                      (f32.load (i32.add (local.get $scale) (i32.shl (local.get $o) (i32.const 2)))))
                    (f32.load (i32.add (local.get $bias) (i32.shl (local.get $o) (i32.const 2))))))
                (local.set $jj (i32.add (local.get $jj) (i32.const 1)))
                (br $store)))
            (local.set $j (i32.add (local.get $j) (i32.const 32)))
            (br $outputs)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $rows))))

  ;; Attention's two products for one head (use-lite-attention.ts computes the softmax between them),
  ;; in doubles, with the sums use-lite-attention.ts makes in JavaScript, each in its own order, so the
  ;; same bits: a score is 0 + q[0] k[0] + q[1] k[1] + ... (d ascending), a value column 0 + s[0] v[0]
  ;; + s[1] v[1] + ... (j ascending), a lane a sum (f64x2.mul then f64x2.add, nothing fused). Rows of
  ;; `wide` are `stride` bytes; a head's query, key and value columns start at byte qo, ko and vo of a
  ;; row; dh (its width) is a multiple of 8.

  ;; scores[i][j] (rows of p doubles, p = n rounded up to 8) = q[i] . k[j] with q[i][d] = f32(f64(q) x scale).
  (func (export "scores")
    (param $wide i32) (param $n i32) (param $stride i32) (param $qo i32) (param $ko i32) (param $dh i32)
    (param $scale f64)
    (param $kt i32)     ;; scratch: the keys as doubles, d-major (dh rows of p)
    (param $qrow i32)   ;; scratch: a query row as doubles (dh)
    (param $out i32)
    (local $p i32) (local $i i32) (local $j i32) (local $d i32) (local $at i32) (local $qd v128)
    (local $acc0 v128) (local $acc1 v128) (local $acc2 v128) (local $acc3 v128)
    (local.set $p (i32.and (i32.add (local.get $n) (i32.const 7)) (i32.const -8)))
    ;; kt[d][j] = k[j][d] (0 for j >= n).
    (local.set $d (i32.const 0))
    (block $ktDone
      (loop $kts
        (br_if $ktDone (i32.ge_u (local.get $d) (local.get $dh)))
        (local.set $j (i32.const 0))
        (block $ktRowDone
          (loop $ktRow
            (br_if $ktRowDone (i32.ge_u (local.get $j) (local.get $p)))
            (f64.store
              (i32.add (local.get $kt) (i32.shl (i32.add (i32.mul (local.get $d) (local.get $p)) (local.get $j)) (i32.const 3)))
              (if (result f64) (i32.lt_u (local.get $j) (local.get $n))
                (then (f64.promote_f32 (f32.load
                  (i32.add (local.get $wide) (i32.add (i32.mul (local.get $j) (local.get $stride))
                    (i32.add (local.get $ko) (i32.shl (local.get $d) (i32.const 2))))))))
                (else (f64.const 0))))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br $ktRow)))
        (local.set $d (i32.add (local.get $d) (i32.const 1)))
        (br $kts)))
    (local.set $i (i32.const 0))
    (block $rowsDone
      (loop $rows
        (br_if $rowsDone (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $d (i32.const 0))
        (block $qDone
          (loop $q
            (br_if $qDone (i32.ge_u (local.get $d) (local.get $dh)))
            (f64.store (i32.add (local.get $qrow) (i32.shl (local.get $d) (i32.const 3)))
              (f64.promote_f32 (f32.demote_f64 (f64.mul (local.get $scale)
                (f64.promote_f32 (f32.load (i32.add (local.get $wide) (i32.add (i32.mul (local.get $i) (local.get $stride))
                  (i32.add (local.get $qo) (i32.shl (local.get $d) (i32.const 2)))))))))))
            (local.set $d (i32.add (local.get $d) (i32.const 1)))
            (br $q)))
        ;; Eight keys at a time: four f64x2 sums, d ascending.
        (local.set $j (i32.const 0))
        (block $blocksDone
          (loop $blocks
            (br_if $blocksDone (i32.ge_u (local.get $j) (local.get $p)))
            (local.set $acc0 (v128.const i64x2 0 0))
            (local.set $acc1 (v128.const i64x2 0 0))
            (local.set $acc2 (v128.const i64x2 0 0))
            (local.set $acc3 (v128.const i64x2 0 0))
            (local.set $d (i32.const 0))
            (block $dsDone
              (loop $ds
                (br_if $dsDone (i32.ge_u (local.get $d) (local.get $dh)))
                (local.set $qd (v128.load64_splat (i32.add (local.get $qrow) (i32.shl (local.get $d) (i32.const 3)))))
                (local.set $at (i32.add (local.get $kt) (i32.shl (i32.add (i32.mul (local.get $d) (local.get $p)) (local.get $j)) (i32.const 3))))
                (local.set $acc0 (f64x2.add (local.get $acc0) (f64x2.mul (local.get $qd) (v128.load offset=0 (local.get $at)))))
                (local.set $acc1 (f64x2.add (local.get $acc1) (f64x2.mul (local.get $qd) (v128.load offset=16 (local.get $at)))))
                (local.set $acc2 (f64x2.add (local.get $acc2) (f64x2.mul (local.get $qd) (v128.load offset=32 (local.get $at)))))
                (local.set $acc3 (f64x2.add (local.get $acc3) (f64x2.mul (local.get $qd) (v128.load offset=48 (local.get $at)))))
                (local.set $d (i32.add (local.get $d) (i32.const 1)))
                (br $ds)))
            (local.set $at (i32.add (local.get $out) (i32.shl (i32.add (i32.mul (local.get $i) (local.get $p)) (local.get $j)) (i32.const 3))))
            (v128.store offset=0 (local.get $at) (local.get $acc0))
            (v128.store offset=16 (local.get $at) (local.get $acc1))
            (v128.store offset=32 (local.get $at) (local.get $acc2))
            (v128.store offset=48 (local.get $at) (local.get $acc3))
            (local.set $j (i32.add (local.get $j) (i32.const 8)))
            (br $blocks)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $rows))))

  ;; out[i][d] (rows of outStride bytes) = f32((s[i][0] v[0][d] + s[i][1] v[1][d] + ...) / sums[i]),
  ;; s the scores' rows (p doubles each, their softmax's numerators) and sums their totals (doubles).
  (func (export "weighted")
    (param $wide i32) (param $n i32) (param $stride i32) (param $vo i32) (param $dh i32)
    (param $scores i32) (param $sums i32)
    (param $vt i32)     ;; scratch: the values as doubles (n rows of dh)
    (param $out i32) (param $outStride i32)
    (local $p i32) (local $i i32) (local $j i32) (local $d i32) (local $at i32) (local $s v128) (local $sum v128)
    (local $acc0 v128) (local $acc1 v128) (local $acc2 v128) (local $acc3 v128)
    (local.set $p (i32.and (i32.add (local.get $n) (i32.const 7)) (i32.const -8)))
    (local.set $j (i32.const 0))
    (block $vtDone
      (loop $vts
        (br_if $vtDone (i32.ge_u (local.get $j) (local.get $n)))
        (local.set $d (i32.const 0))
        (block $vtRowDone
          (loop $vtRow
            (br_if $vtRowDone (i32.ge_u (local.get $d) (local.get $dh)))
            (f64.store
              (i32.add (local.get $vt) (i32.shl (i32.add (i32.mul (local.get $j) (local.get $dh)) (local.get $d)) (i32.const 3)))
              (f64.promote_f32 (f32.load (i32.add (local.get $wide) (i32.add (i32.mul (local.get $j) (local.get $stride))
                (i32.add (local.get $vo) (i32.shl (local.get $d) (i32.const 2))))))))
            (local.set $d (i32.add (local.get $d) (i32.const 1)))
            (br $vtRow)))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $vts)))
    (local.set $i (i32.const 0))
    (block $rowsDone
      (loop $rows
        (br_if $rowsDone (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $sum (v128.load64_splat (i32.add (local.get $sums) (i32.shl (local.get $i) (i32.const 3)))))
        ;; Eight value columns at a time: four f64x2 sums, j ascending.
        (local.set $d (i32.const 0))
        (block $blocksDone
          (loop $blocks
            (br_if $blocksDone (i32.ge_u (local.get $d) (local.get $dh)))
            (local.set $acc0 (v128.const i64x2 0 0))
            (local.set $acc1 (v128.const i64x2 0 0))
            (local.set $acc2 (v128.const i64x2 0 0))
            (local.set $acc3 (v128.const i64x2 0 0))
            (local.set $j (i32.const 0))
            (block $jsDone
              (loop $js
                (br_if $jsDone (i32.ge_u (local.get $j) (local.get $n)))
                (local.set $s (v128.load64_splat (i32.add (local.get $scores) (i32.shl (i32.add (i32.mul (local.get $i) (local.get $p)) (local.get $j)) (i32.const 3)))))
                (local.set $at (i32.add (local.get $vt) (i32.shl (i32.add (i32.mul (local.get $j) (local.get $dh)) (local.get $d)) (i32.const 3))))
                (local.set $acc0 (f64x2.add (local.get $acc0) (f64x2.mul (local.get $s) (v128.load offset=0 (local.get $at)))))
                (local.set $acc1 (f64x2.add (local.get $acc1) (f64x2.mul (local.get $s) (v128.load offset=16 (local.get $at)))))
                (local.set $acc2 (f64x2.add (local.get $acc2) (f64x2.mul (local.get $s) (v128.load offset=32 (local.get $at)))))
                (local.set $acc3 (f64x2.add (local.get $acc3) (f64x2.mul (local.get $s) (v128.load offset=48 (local.get $at)))))
                (local.set $j (i32.add (local.get $j) (i32.const 1)))
                (br $js)))
            ;; Divided by the row's total, rounded to float32 (two a store).
            (local.set $at (i32.add (local.get $out) (i32.add (i32.mul (local.get $i) (local.get $outStride)) (i32.shl (local.get $d) (i32.const 2)))))
            (v128.store64_lane offset=0 0 (local.get $at) (f32x4.demote_f64x2_zero (f64x2.div (local.get $acc0) (local.get $sum))))
            (v128.store64_lane offset=8 0 (local.get $at) (f32x4.demote_f64x2_zero (f64x2.div (local.get $acc1) (local.get $sum))))
            (v128.store64_lane offset=16 0 (local.get $at) (f32x4.demote_f64x2_zero (f64x2.div (local.get $acc2) (local.get $sum))))
            (v128.store64_lane offset=24 0 (local.get $at) (f32x4.demote_f64x2_zero (f64x2.div (local.get $acc3) (local.get $sum))))
            (local.set $d (i32.add (local.get $d) (i32.const 8)))
            (br $blocks)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $rows))))
)
