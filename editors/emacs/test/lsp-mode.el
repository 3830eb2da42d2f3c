;;; lsp-mode.el --- faultline in Emacs with lsp-mode, in batch mode  -*- lexical-binding: t -*-

;; Starts faultline beside (not instead of) other Go servers, as the README
;; configures it, and checks that the diagnostic on the faulty line arrives
;; and that lsp-mode reports no unknown notification. (lsp-mode 8.0 kills
;; the server right after sending exit, so how it ended says nothing of the
;; server: e2e.el checks the exit.) Environment as for e2e.el.

(require 'package)
(package-initialize)
(require 'cl-lib)
(setq lsp-session-file (expand-file-name "lsp-session" (getenv "HOME"))
      lsp-auto-guess-root t
      lsp-enable-snippet nil
      lsp-restart 'ignore)
(require 'lsp-mode)

(load (expand-file-name "harness.el" (file-name-directory load-file-name)) nil t)
(add-to-list 'lsp-language-id-configuration '(go-mode . "go"))
;; The README's configuration.
(lsp-register-client
 (make-lsp-client :new-connection (lsp-stdio-connection (list (getenv "FAULTLINE_BIN") "serve"))
                  :activation-fn (lsp-activate-on "go")
                  :add-on? t
                  :server-id 'faultline))
;; gopls is not installed here; only faultline is to start.
(setq lsp-disabled-clients '(gopls go-bingo go-ls))

(defvar e2e-line (string-to-number (getenv "FAULT_LINE")))
(defvar e2e-timeout (string-to-number (or (getenv "FAULTLINE_E2E_TIMEOUT") "300")))
(find-file (expand-file-name (getenv "FAULT_FILE") (getenv "MODULE")))
(lsp)
(let ((deadline (+ (float-time) e2e-timeout)) found)
  (while (not found)
    (when (> (float-time) deadline) (e2e-fail "no diagnostic on line %d" e2e-line))
    (accept-process-output nil 0.3)
    (setq found (cl-some (lambda (d) (= (lsp:position-line (lsp:range-start (lsp:diagnostic-range d))) (1- e2e-line)))
                         (gethash (buffer-file-name) (lsp-diagnostics t)))))
  (e2e-log "lsp-mode: diagnostic on line %d" e2e-line))

(defun e2e-messages-matching (re)
  (with-current-buffer "*Messages*"
    (save-excursion
      (goto-char (point-min))
      (cl-loop while (re-search-forward re nil t) count t))))
(let ((unknown (e2e-messages-matching "Unknown notification")))
  (unless (zerop unknown) (e2e-fail "lsp-mode printed %d unknown notifications" unknown)))
(lsp-workspace-shutdown (car (lsp-workspaces)))
(e2e-log "lsp-mode: no unknown notification")
(e2e-log "PASS")
(kill-emacs 0)
;;; lsp-mode.el ends here
