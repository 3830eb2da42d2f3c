;;; e2e.el --- faultline in Emacs with eglot, in batch mode  -*- lexical-binding: t -*-

;; Opens the faulty file of an example module, connects eglot to
;; `faultline serve' and checks what a user sees: a Flymake diagnostic on
;; the faulty line, a hover there, a code action, inlay hints (requested
;; through eglot's connection: eglot 1.9 does not show them itself) and a
;; clean exit of the server (status 0 after shutdown and exit).
;;
;; Environment: FAULTLINE_BIN, MODULE (a copy of the example inside a git
;; repository), FAULT_FILE and FAULT_LINE (relative to MODULE, 1-based),
;; FAULTLINE_E2E_TIMEOUT (seconds to wait for the diagnostic, default 300).

(require 'package)
(package-initialize)
(require 'eglot)
(require 'flymake)
(require 'cl-lib)

(load (expand-file-name "harness.el" (file-name-directory load-file-name)) nil t)

(defvar e2e-bin (or (getenv "FAULTLINE_BIN") (e2e-fail "FAULTLINE_BIN is not set")))
(defvar e2e-module (file-name-as-directory (getenv "MODULE")))
(defvar e2e-line (string-to-number (getenv "FAULT_LINE")))
(defvar e2e-timeout (string-to-number (or (getenv "FAULTLINE_E2E_TIMEOUT") "300")))

(setq eglot-server-programs `((go-mode ,e2e-bin "serve")))
(setq eglot-sync-connect t
      eglot-connect-timeout 60)

(find-file (expand-file-name (getenv "FAULT_FILE") e2e-module))
(unless (eq major-mode 'go-mode) (e2e-fail "buffer in %s, not go-mode" major-mode))
(call-interactively #'eglot)
(defvar e2e-server (or (eglot-current-server) (e2e-fail "eglot did not connect")))
(e2e-log "eglot connected to %s" (jsonrpc-name e2e-server))

(defun e2e-line-pos (line)
  (save-excursion (goto-char (point-min)) (forward-line (1- line)) (point)))

;; 1. The diagnostic on the faulty line, as Flymake shows it.
(defun e2e-fault-diagnostics ()
  (let ((beg (e2e-line-pos e2e-line)))
    (cl-remove-if-not (lambda (d) (string-match-p "faultline\\|suspicious\\|score" (flymake-diagnostic-text d)))
                      (flymake-diagnostics beg (save-excursion (goto-char beg) (line-end-position))))))
(e2e-wait "Flymake diagnostic on the faulty line" #'e2e-fault-diagnostics e2e-timeout)
(e2e-log "diagnostic on line %d: %s" e2e-line
         (car (split-string (flymake-diagnostic-text (car (e2e-fault-diagnostics))) "\n")))

;; 2. Hover on the faulty line.
(goto-char (e2e-line-pos e2e-line))
(back-to-indentation)
(let* ((hover (jsonrpc-request e2e-server :textDocument/hover (eglot--TextDocumentPositionParams)))
       (contents (plist-get hover :contents))
       (text (format "%s" (if (stringp contents) contents (or (plist-get contents :value) contents)))))
  (unless (string-match-p "ochiai" text) (e2e-fail "hover without the scores: %s" text))
  (e2e-log "hover: %s" (car (split-string text "\n" t))))

;; 3. A code action on the faulty line, as eglot-code-actions finds it.
(let ((actions (eglot-code-actions (e2e-line-pos e2e-line) (save-excursion (goto-char (e2e-line-pos e2e-line)) (line-end-position)))))
  (unless actions (e2e-fail "no code action on line %d" e2e-line))
  (e2e-log "code actions: %s" (mapconcat (lambda (a) (plist-get a :title)) actions "; ")))

;; 4. Inlay hints over the buffer.
(let ((hints (jsonrpc-request e2e-server :textDocument/inlayHint
                              (list :textDocument (eglot--TextDocumentIdentifier)
                                    :range (list :start (eglot--pos-to-lsp-position (point-min))
                                                 :end (eglot--pos-to-lsp-position (point-max)))))))
  (unless (cl-some (lambda (h) (= (plist-get (plist-get h :position) :line) (1- e2e-line))) hints)
    (e2e-fail "no inlay hint on line %d among %d" e2e-line (length hints)))
  (e2e-log "inlay hints: %d, one on line %d" (length hints) e2e-line))

;; 5. A clean exit: shutdown, exit, and the process ends by itself with
;; status 0. (eglot-shutdown on Emacs 28 deletes the process right after
;; exit, so its status would not tell.)
(let ((proc (jsonrpc--process e2e-server)))
  (setf (eglot--shutdown-requested e2e-server) t)
  (jsonrpc-request e2e-server :shutdown nil :timeout 10)
  (jsonrpc-notify e2e-server :exit nil)
  (let ((sent (float-time)))
    (e2e-wait "server exit" (lambda () (not (process-live-p proc))) 5)
    (unless (and (eq (process-status proc) 'exit) (= (process-exit-status proc) 0))
      (e2e-fail "server ended with %s %s" (process-status proc) (process-exit-status proc)))
    (e2e-log "server exited with status 0, %.0f ms after exit" (* 1000 (- (float-time) sent)))))

(e2e-log "PASS")
(kill-emacs 0)
;;; e2e.el ends here
