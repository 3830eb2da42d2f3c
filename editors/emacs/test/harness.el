;;; harness.el --- helpers of the Emacs end-to-end tests  -*- lexical-binding: t -*-

;; Loaded by e2e.el, lsp-mode.el and trust.el: timestamped output, failure,
;; waiting on server output, and a Go major mode where Emacs has none.

(require 'cl-lib)

(defvar e2e-start (float-time))
(defun e2e-log (fmt &rest args)
  (princ (format "[%5.1fs] %s\n" (- (float-time) e2e-start) (apply #'format fmt args))))
(defun e2e-fail (fmt &rest args)
  (e2e-log "FAIL: %s" (apply #'format fmt args))
  (kill-emacs 1))

(defun e2e-wait (what pred timeout)
  "Wait until PRED holds, reading server output, at most TIMEOUT seconds."
  (let ((deadline (+ (float-time) timeout)))
    (while (not (funcall pred))
      (when (> (float-time) deadline)
        (e2e-fail "no %s after %ds" what timeout))
      (accept-process-output nil 0.2))))

;; A minimal Go major mode: eglot and lsp-mode manage buffers by major
;; mode, and Emacs 28 has none for Go (users have go-mode or, from Emacs
;; 29, go-ts-mode).
(unless (fboundp 'go-mode)
  (define-derived-mode go-mode prog-mode "Go"))
(add-to-list 'auto-mode-alist '("\\.go\\'" . go-mode))

;;; harness.el ends here
