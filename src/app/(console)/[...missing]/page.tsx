// Any path no console page answers: a real 404 inside the console frame, not Next's bare page outside it.
import { notFound } from 'next/navigation';

export default function MissingPage(): never {
  notFound();
}
