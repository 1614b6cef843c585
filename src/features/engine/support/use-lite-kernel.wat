;; The built-in encoder's one hot loop (use-lite.ts's int8 dense layers) in WebAssembly SIMD.
;; Assembled by scripts/build-use-lite-kernel.ts (wabt) into assets/engine/use-lite-kernel.wasm,
;; which use-lite-kernel.ts loads; a unit test checks the committed file is this text's.
;;
;; out[i][j] = (a[i] . w[j]) * scale[j] + bias[j], for i < n and j < m, where a holds n rows of k
;; float32s and w holds m rows of k int8s (one scale a row). Four weights a step (widened to
;; float32), eight rows of `a` a weight read (four for the last rows when n is not a multiple of
;; 8): each row keeps four partial sums in the lanes of a v128 (lane l sums a[p + l] * w[p + l] for
;; p = 0, 4, 8, ...), added together at the end of the row as ((l0 + l1) + l2) + l3. That order is
;; the kernel's float32 result: do not reorder it (the vectors, hence the support check's decisions,
;; would move in their last bits). Eight rows a weight read read and widened each weight half as
;; often as four did (a question's pass, 16 rows, went from four reads of every matrix to two).
;;
;; All addresses are bytes in the caller's memory (use-lite-kernel.ts's kernelMemory, which pads
;; every buffer to 16 bytes). The caller rounds n up to a multiple of 4 (its buffers have the rows
;; to spare) and k is a multiple of 4 (the model's widths are 256, 512, 1024, 2048).
(module
  (import "m" "memory" (memory 0))

  (func (export "dense")
    (param $a i32)     ;; float32 rows of k: the input
    (param $n i32)     ;; rows of a (a multiple of 4)
    (param $w i32)     ;; int8 rows of k: the matrix, one output a row
    (param $scale i32) ;; float32 a row of w
    (param $bias i32)  ;; float32 a row of w
    (param $m i32)     ;; rows of w (outputs)
    (param $k i32)     ;; columns of a and w (a multiple of 4)
    (param $out i32)   ;; float32 rows of m: the output
    (local $i i32)     ;; the first of the eight (or four) rows of a being computed
    (local $j i32)     ;; the row of w (the output column)
    (local $p i32)     ;; the column
    (local $rowBytes i32) ;; k * 4: a row of a, in bytes
    (local $aRow i32)  ;; row i of a
    (local $wRow i32)  ;; row j of w
    (local $ap i32)    ;; a[i][p]; rows i+1..i+7 are rowBytes apart
    (local $acc0 v128) ;; partial sums of rows i, i+1, ..., i+7 against row j of w
    (local $acc1 v128)
    (local $acc2 v128)
    (local $acc3 v128)
    (local $acc4 v128)
    (local $acc5 v128)
    (local $acc6 v128)
    (local $acc7 v128)
    (local $wv v128)   ;; w[j][p..p+3] as float32s
    (local $sc f32)    ;; scale[j]
    (local $b f32)     ;; bias[j]

    (local.set $rowBytes (i32.shl (local.get $k) (i32.const 2)))
    (local.set $i (i32.const 0))
    ;; Eight rows at a time while eight are left.
    (block $eightsDone
      (loop $eights
        (br_if $eightsDone (i32.gt_u (i32.add (local.get $i) (i32.const 8)) (local.get $n)))
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
            (local.set $aRow (i32.add (local.get $a) (i32.mul (local.get $i) (local.get $rowBytes))))
            (local.set $wRow (i32.add (local.get $w) (i32.mul (local.get $j) (local.get $k))))
            (local.set $p (i32.const 0))
            (block $columnsDone8
              (loop $columns8
                (br_if $columnsDone8 (i32.ge_u (local.get $p) (local.get $k)))
                ;; Four int8 weights, sign-extended to i16, then to i32, then converted to float32.
                (local.set $wv
                  (f32x4.convert_i32x4_s
                    (i32x4.extend_low_i16x8_s
                      (i16x8.extend_low_i8x16_s
                        (v128.load32_zero align=1 (i32.add (local.get $wRow) (local.get $p)))))))
                (local.set $ap
                  (i32.add (local.get $aRow) (i32.shl (local.get $p) (i32.const 2))))
                ;; acc[r] += a[i + r][p..p+3] * wv
                (local.set $acc0
                  (f32x4.add (local.get $acc0)
                    (f32x4.mul (v128.load align=1 (local.get $ap)) (local.get $wv))))
                (local.set $acc1
                  (f32x4.add (local.get $acc1)
                    (f32x4.mul (v128.load align=1 (i32.add (local.get $ap) (local.get $rowBytes))) (local.get $wv))))
                (local.set $acc2
                  (f32x4.add (local.get $acc2)
                    (f32x4.mul (v128.load align=1 (i32.add (local.get $ap) (i32.mul (local.get $rowBytes) (i32.const 2)))) (local.get $wv))))
                (local.set $acc3
                  (f32x4.add (local.get $acc3)
                    (f32x4.mul (v128.load align=1 (i32.add (local.get $ap) (i32.mul (local.get $rowBytes) (i32.const 3)))) (local.get $wv))))
                (local.set $acc4
                  (f32x4.add (local.get $acc4)
                    (f32x4.mul (v128.load align=1 (i32.add (local.get $ap) (i32.mul (local.get $rowBytes) (i32.const 4)))) (local.get $wv))))
                (local.set $acc5
                  (f32x4.add (local.get $acc5)
                    (f32x4.mul (v128.load align=1 (i32.add (local.get $ap) (i32.mul (local.get $rowBytes) (i32.const 5)))) (local.get $wv))))
                (local.set $acc6
                  (f32x4.add (local.get $acc6)
                    (f32x4.mul (v128.load align=1 (i32.add (local.get $ap) (i32.mul (local.get $rowBytes) (i32.const 6)))) (local.get $wv))))
                (local.set $acc7
                  (f32x4.add (local.get $acc7)
                    (f32x4.mul (v128.load align=1 (i32.add (local.get $ap) (i32.mul (local.get $rowBytes) (i32.const 7)))) (local.get $wv))))
                (local.set $p (i32.add (local.get $p) (i32.const 4)))
                (br $columns8)))
            ;; out[i + r][j] = (((acc[r].0 + acc[r].1) + acc[r].2) + acc[r].3) * scale[j] + bias[j],
            ;; written out for each row: a call to a function for it cost 7-9% of the kernel's time
            ;; (measured under Bun: JavaScriptCore does not inline it).
            (local.set $sc (f32.load (i32.add (local.get $scale) (i32.shl (local.get $j) (i32.const 2)))))
            (local.set $b (f32.load (i32.add (local.get $bias) (i32.shl (local.get $j) (i32.const 2)))))
            (f32.store
              (i32.add (local.get $out)
                (i32.shl (i32.add (i32.mul (local.get $i) (local.get $m)) (local.get $j)) (i32.const 2)))
              (f32.add
                (f32.mul
                  (f32.add
                    (f32.add
                      (f32.add (f32x4.extract_lane 0 (local.get $acc0)) (f32x4.extract_lane 1 (local.get $acc0)))
                      (f32x4.extract_lane 2 (local.get $acc0)))
                    (f32x4.extract_lane 3 (local.get $acc0)))
                  (local.get $sc))
                (local.get $b)))
            (f32.store
              (i32.add (local.get $out)
                (i32.shl (i32.add (i32.mul (i32.add (local.get $i) (i32.const 1)) (local.get $m)) (local.get $j)) (i32.const 2)))
              (f32.add
                (f32.mul
                  (f32.add
                    (f32.add
                      (f32.add (f32x4.extract_lane 0 (local.get $acc1)) (f32x4.extract_lane 1 (local.get $acc1)))
                      (f32x4.extract_lane 2 (local.get $acc1)))
                    (f32x4.extract_lane 3 (local.get $acc1)))
                  (local.get $sc))
                (local.get $b)))
            (f32.store
              (i32.add (local.get $out)
                (i32.shl (i32.add (i32.mul (i32.add (local.get $i) (i32.const 2)) (local.get $m)) (local.get $j)) (i32.const 2)))
              (f32.add
                (f32.mul
                  (f32.add
                    (f32.add
                      (f32.add (f32x4.extract_lane 0 (local.get $acc2)) (f32x4.extract_lane 1 (local.get $acc2)))
                      (f32x4.extract_lane 2 (local.get $acc2)))
                    (f32x4.extract_lane 3 (local.get $acc2)))
                  (local.get $sc))
                (local.get $b)))
            (f32.store
              (i32.add (local.get $out)
                (i32.shl (i32.add (i32.mul (i32.add (local.get $i) (i32.const 3)) (local.get $m)) (local.get $j)) (i32.const 2)))
              (f32.add
                (f32.mul
                  (f32.add
                    (f32.add
                      (f32.add (f32x4.extract_lane 0 (local.get $acc3)) (f32x4.extract_lane 1 (local.get $acc3)))
                      (f32x4.extract_lane 2 (local.get $acc3)))
                    (f32x4.extract_lane 3 (local.get $acc3)))
                  (local.get $sc))
                (local.get $b)))
            (f32.store
              (i32.add (local.get $out)
                (i32.shl (i32.add (i32.mul (i32.add (local.get $i) (i32.const 4)) (local.get $m)) (local.get $j)) (i32.const 2)))
              (f32.add
                (f32.mul
                  (f32.add
                    (f32.add
                      (f32.add (f32x4.extract_lane 0 (local.get $acc4)) (f32x4.extract_lane 1 (local.get $acc4)))
                      (f32x4.extract_lane 2 (local.get $acc4)))
                    (f32x4.extract_lane 3 (local.get $acc4)))
                  (local.get $sc))
                (local.get $b)))
            (f32.store
              (i32.add (local.get $out)
                (i32.shl (i32.add (i32.mul (i32.add (local.get $i) (i32.const 5)) (local.get $m)) (local.get $j)) (i32.const 2)))
              (f32.add
                (f32.mul
                  (f32.add
                    (f32.add
                      (f32.add (f32x4.extract_lane 0 (local.get $acc5)) (f32x4.extract_lane 1 (local.get $acc5)))
                      (f32x4.extract_lane 2 (local.get $acc5)))
                    (f32x4.extract_lane 3 (local.get $acc5)))
                  (local.get $sc))
                (local.get $b)))
            (f32.store
              (i32.add (local.get $out)
                (i32.shl (i32.add (i32.mul (i32.add (local.get $i) (i32.const 6)) (local.get $m)) (local.get $j)) (i32.const 2)))
              (f32.add
                (f32.mul
                  (f32.add
                    (f32.add
                      (f32.add (f32x4.extract_lane 0 (local.get $acc6)) (f32x4.extract_lane 1 (local.get $acc6)))
                      (f32x4.extract_lane 2 (local.get $acc6)))
                    (f32x4.extract_lane 3 (local.get $acc6)))
                  (local.get $sc))
                (local.get $b)))
            (f32.store
              (i32.add (local.get $out)
                (i32.shl (i32.add (i32.mul (i32.add (local.get $i) (i32.const 7)) (local.get $m)) (local.get $j)) (i32.const 2)))
              (f32.add
                (f32.mul
                  (f32.add
                    (f32.add
                      (f32.add (f32x4.extract_lane 0 (local.get $acc7)) (f32x4.extract_lane 1 (local.get $acc7)))
                      (f32x4.extract_lane 2 (local.get $acc7)))
                    (f32x4.extract_lane 3 (local.get $acc7)))
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
        (local.set $j (i32.const 0))
        (block $outputsDone4
          (loop $outputs4
            (br_if $outputsDone4 (i32.ge_u (local.get $j) (local.get $m)))
            (local.set $acc0 (v128.const i32x4 0 0 0 0))
            (local.set $acc1 (v128.const i32x4 0 0 0 0))
            (local.set $acc2 (v128.const i32x4 0 0 0 0))
            (local.set $acc3 (v128.const i32x4 0 0 0 0))
            (local.set $aRow (i32.add (local.get $a) (i32.mul (local.get $i) (local.get $rowBytes))))
            (local.set $wRow (i32.add (local.get $w) (i32.mul (local.get $j) (local.get $k))))
            (local.set $p (i32.const 0))
            (block $columnsDone4
              (loop $columns4
                (br_if $columnsDone4 (i32.ge_u (local.get $p) (local.get $k)))
                ;; Four int8 weights, sign-extended to i16, then to i32, then converted to float32.
                (local.set $wv
                  (f32x4.convert_i32x4_s
                    (i32x4.extend_low_i16x8_s
                      (i16x8.extend_low_i8x16_s
                        (v128.load32_zero align=1 (i32.add (local.get $wRow) (local.get $p)))))))
                (local.set $ap
                  (i32.add (local.get $aRow) (i32.shl (local.get $p) (i32.const 2))))
                ;; acc[r] += a[i + r][p..p+3] * wv
                (local.set $acc0
                  (f32x4.add (local.get $acc0)
                    (f32x4.mul (v128.load align=1 (local.get $ap)) (local.get $wv))))
                (local.set $acc1
                  (f32x4.add (local.get $acc1)
                    (f32x4.mul (v128.load align=1 (i32.add (local.get $ap) (local.get $rowBytes))) (local.get $wv))))
                (local.set $acc2
                  (f32x4.add (local.get $acc2)
                    (f32x4.mul (v128.load align=1 (i32.add (local.get $ap) (i32.mul (local.get $rowBytes) (i32.const 2)))) (local.get $wv))))
                (local.set $acc3
                  (f32x4.add (local.get $acc3)
                    (f32x4.mul (v128.load align=1 (i32.add (local.get $ap) (i32.mul (local.get $rowBytes) (i32.const 3)))) (local.get $wv))))
                (local.set $p (i32.add (local.get $p) (i32.const 4)))
                (br $columns4)))
            ;; out[i + r][j] = (((acc[r].0 + acc[r].1) + acc[r].2) + acc[r].3) * scale[j] + bias[j],
            ;; written out for each row: a call to a function for it cost 7-9% of the kernel's time
            ;; (measured under Bun: JavaScriptCore does not inline it).
            (local.set $sc (f32.load (i32.add (local.get $scale) (i32.shl (local.get $j) (i32.const 2)))))
            (local.set $b (f32.load (i32.add (local.get $bias) (i32.shl (local.get $j) (i32.const 2)))))
            (f32.store
              (i32.add (local.get $out)
                (i32.shl (i32.add (i32.mul (local.get $i) (local.get $m)) (local.get $j)) (i32.const 2)))
              (f32.add
                (f32.mul
                  (f32.add
                    (f32.add
                      (f32.add (f32x4.extract_lane 0 (local.get $acc0)) (f32x4.extract_lane 1 (local.get $acc0)))
                      (f32x4.extract_lane 2 (local.get $acc0)))
                    (f32x4.extract_lane 3 (local.get $acc0)))
                  (local.get $sc))
                (local.get $b)))
            (f32.store
              (i32.add (local.get $out)
                (i32.shl (i32.add (i32.mul (i32.add (local.get $i) (i32.const 1)) (local.get $m)) (local.get $j)) (i32.const 2)))
              (f32.add
                (f32.mul
                  (f32.add
                    (f32.add
                      (f32.add (f32x4.extract_lane 0 (local.get $acc1)) (f32x4.extract_lane 1 (local.get $acc1)))
                      (f32x4.extract_lane 2 (local.get $acc1)))
                    (f32x4.extract_lane 3 (local.get $acc1)))
                  (local.get $sc))
                (local.get $b)))
            (f32.store
              (i32.add (local.get $out)
                (i32.shl (i32.add (i32.mul (i32.add (local.get $i) (i32.const 2)) (local.get $m)) (local.get $j)) (i32.const 2)))
              (f32.add
                (f32.mul
                  (f32.add
                    (f32.add
                      (f32.add (f32x4.extract_lane 0 (local.get $acc2)) (f32x4.extract_lane 1 (local.get $acc2)))
                      (f32x4.extract_lane 2 (local.get $acc2)))
                    (f32x4.extract_lane 3 (local.get $acc2)))
                  (local.get $sc))
                (local.get $b)))
            (f32.store
              (i32.add (local.get $out)
                (i32.shl (i32.add (i32.mul (i32.add (local.get $i) (i32.const 3)) (local.get $m)) (local.get $j)) (i32.const 2)))
              (f32.add
                (f32.mul
                  (f32.add
                    (f32.add
                      (f32.add (f32x4.extract_lane 0 (local.get $acc3)) (f32x4.extract_lane 1 (local.get $acc3)))
                      (f32x4.extract_lane 2 (local.get $acc3)))
                    (f32x4.extract_lane 3 (local.get $acc3)))
                  (local.get $sc))
                (local.get $b)))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br $outputs4)))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
        (br $rows)))))
