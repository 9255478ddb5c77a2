import { toast } from './toast';

/** Copies text; on failure shows the message of docs/console.md §4 and returns false so the caller can show the value. */
export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    toast.warning('无法复制到剪贴板，请手动复制');
    return false;
  }
}
