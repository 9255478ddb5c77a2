import { PASSWORD_MIN, UserMessages } from '@model-relay/contract';

export interface RegisterForm {
  username: string;
  password: string;
  password2: string;
}

/**
 * The registration checks of docs/console.md §5, in order. Returns undefined to send nothing (empty fields),
 * a message to show, or 'ok'.
 */
export function checkRegistration(form: RegisterForm): 'ok' | 'empty' | string {
  if (!form.username || !form.password) return 'empty';
  if (form.password.length < PASSWORD_MIN) return UserMessages.passwordTooShort;
  if (form.password !== form.password2) return UserMessages.passwordMismatch;
  return 'ok';
}
