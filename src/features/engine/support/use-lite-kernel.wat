;; The built-in encoder's one hot loop (use-lite.ts's int8 dense layers) in WebAssembly SIMD, in
;; integers. Assembled by scripts/build-use-lite-kernel.ts (wabt) into assets/engine/use-lite-kernel.wasm,
;; which use-lite-kernel.ts loads; a unit test checks the committed file is this text's.
;;
;; out[i][j] = f32(q[i] . w[j]) * rowScale[i] * scale[j] + bias[j], for i < n and j < m, where a holds
;; n rows of k float32s and w holds m rows of k int8s (one scale a row). Each row of a is first
;; quantized to int16 with its own scale ($quantize: its largest magnitude becomes 16383, each value
;; x is nearest(f32(x * f32(16383 / max))), ties to even, and rowScale = f32(max / 16383); a row of
;; zeros gives zeros). Sixteen weights a step are loaded and widened to two i16x8
;; (i16x8.extend_low/high_i8x16_s), and i32x4.dot_i16x8_s sums the products in pairs into i32
;; lanes, eight rows of q a weight read (four for the last rows when n is not a multiple of 8).
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
;; float32 row scales). The caller rounds n up to a multiple of 4 (its buffers have the rows to
;; spare) and k is a multiple of 16 (the model's widths are 256, 512 and 1536).
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
    (param $n i32)     ;; rows of a (a multiple of 4)
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
    ;; The last four rows, when n is not a multiple of 8.
    (block $rowsDone
      (loop $rows
        (br_if $rowsDone (i32.ge_u (local.get $i) (local.get $n)))
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
                ;; acc[r] += q[r][p..p+15] . w[j][p..p+15], in pairs of products (i32x4.dot_i16x8_s); the
                ;; block's 4 rows' sixteen values are 128 bytes in a row of the scratch (r x 32 bytes apart).
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
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br $outputs4)))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
        (br $rows)))))
